#include "engine/config.hpp"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace specula::engine
{
    namespace
    {
        std::string lowered(const char* text)
        {
            std::string out(text);
            for (char& c : out)
            {
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            }
            return out;
        }

        bool parse_count(const char* text, std::int64_t& out)
        {
            char* end = nullptr;
            long long v = std::strtoll(text, &end, 10);
            if (end == text || *end != '\0' || v < 0)
            {
                return false;
            }
            out = v;
            return true;
        }

        void parse_dump(const std::string& list, dump_flags& flags)
        {
            std::stringstream items(list);
            std::string item;
            while (std::getline(items, item, ','))
            {
                bool all = item == "all";
                flags.ir |= all || item == "ir";
                flags.guards |= all || item == "guards";
                flags.exits |= all || item == "exits";
                flags.cache |= all || item == "cache";
                flags.backends |= all || item == "backends";
            }
        }
    } // namespace

    const char* numerics_name(numerics_mode m)
    {
        return m == numerics_mode::exact ? "exact" : "fast";
    }

    bool parse_numerics(const char* text, numerics_mode& out)
    {
        if (text == nullptr)
        {
            return false;
        }
        std::string v = lowered(text);
        if (v == "fast" || v == "exact")
        {
            out = v == "exact" ? numerics_mode::exact : numerics_mode::fast;
            return true;
        }
        return false;
    }

    config parse_config(const char* engine, const char* threshold, const char* dump,
                        const char* cost_check, const char* numerics)
    {
        config c;
        if (engine != nullptr)
        {
            std::string v = lowered(engine);
            c.enabled = !(v == "off" || v == "0" || v == "false" || v == "no");
        }
        if (cost_check != nullptr)
        {
            std::string v = lowered(cost_check);
            c.cost_check = !(v == "off" || v == "0" || v == "false" || v == "no");
        }
        if (threshold != nullptr)
        {
            parse_count(threshold, c.threshold);
        }
        if (dump != nullptr)
        {
            parse_dump(lowered(dump), c.dump);
        }
        parse_numerics(numerics, c.numerics);
        return c;
    }

    config config_from_environment()
    {
        config c = parse_config(std::getenv("SPECULA_ENGINE"), std::getenv("SPECULA_THRESHOLD"),
                                std::getenv("SPECULA_DUMP"), std::getenv("SPECULA_COST_CHECK"),
                                std::getenv("SPECULA_NUMERICS"));
        if (const char* rearm = std::getenv("SPECULA_REARM_MS"))
        {
            parse_count(rearm, c.rearm_ms);
        }
        return c;
    }
} // namespace specula::engine
