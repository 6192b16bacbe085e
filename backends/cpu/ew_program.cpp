#include "backends/cpu/ew_program.hpp"

#include "backends/cpu/builtin_loops.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace specula::backends::cpu
{
    namespace
    {
        bool is_comparison(ir::op code)
        {
            return code == ir::op::EQ || code == ir::op::NE || code == ir::op::LT ||
                   code == ir::op::LE || code == ir::op::GT || code == ir::op::GE;
        }

        bool is_logical(ir::op code)
        {
            return code == ir::op::LOGICAL_AND || code == ir::op::LOGICAL_OR ||
                   code == ir::op::LOGICAL_XOR || code == ir::op::LOGICAL_NOT;
        }

        // NumPy's integer loops that call back into Python (power with a
        // negative exponent raises) or are undefined in C (1/0) stay with the
        // reference backend, which reports them as values.
        bool numpy_loop_allowed(ir::op code, ir::dtype t)
        {
            if (ir::is_float(t))
            {
                return true;
            }
            return code != ir::op::POW && code != ir::op::RECIPROCAL;
        }

        class builder
        {
        public:
            builder(const ir::graph& g, const std::vector<ir::value_id>& outputs,
                    const loop_source& loops)
                : m_graph(g), m_loops(loops)
            {
                m_prog.m_outputs = outputs;
            }

            status add(const ir::node& n)
            {
                const ir::dtype out = m_graph.type_of(n.outputs[0]).elem;
                std::vector<int> srcs;
                ufunc_loop loop;
                if (n.code == ir::op::CAST)
                {
                    srcs.push_back(reg_of(n.inputs[0]));
                    loop = cast_loop(m_prog.m_regs[srcs[0]].elem, out);
                }
                else if (n.code == ir::op::WHERE)
                {
                    srcs = {as(reg_of(n.inputs[0]), ir::dtype::bool_), as(reg_of(n.inputs[1]), out),
                            as(reg_of(n.inputs[2]), out)};
                    loop = where_loop(out);
                }
                else
                {
                    ir::dtype t = out;
                    if (is_comparison(n.code))
                    {
                        t = ir::promote_types(m_graph.type_of(n.inputs[0]).elem,
                                              m_graph.type_of(n.inputs[1]).elem);
                    }
                    else if (is_logical(n.code))
                    {
                        t = ir::dtype::bool_;
                    }
                    for (ir::value_id v : n.inputs)
                    {
                        srcs.push_back(as(reg_of(v), t));
                    }
                    loop = select_loop(n.code, t, m_loops);
                }
                if (!loop)
                {
                    return status::unimplemented(std::string("no loop for ") +
                                                 std::string(ir::mnemonic(n.code)) + " on " +
                                                 std::string(ir::dtype_name(out)));
                }
                ew_instr ins;
                ins.loop = loop;
                for (int s : srcs)
                {
                    ins.args[static_cast<std::size_t>(ins.num_args++)] = s;
                }
                ins.args[static_cast<std::size_t>(ins.num_args++)] = define(n.outputs[0], out);
                m_prog.m_code.push_back(ins);
                return status::ok();
            }

            ew_program take() { return std::move(m_prog); }

        private:
            int new_reg(ir::dtype t, reg_kind k, int index)
            {
                m_prog.m_regs.push_back({t, k, index});
                return static_cast<int>(m_prog.m_regs.size()) - 1;
            }

            int reg_of(ir::value_id v)
            {
                auto it = m_value_reg.find(v);
                if (it != m_value_reg.end())
                {
                    return it->second;
                }
                m_prog.m_inputs.push_back(v);
                const int r = new_reg(m_graph.type_of(v).elem, reg_kind::input,
                                      static_cast<int>(m_prog.m_inputs.size()) - 1);
                m_value_reg[v] = r;
                return r;
            }

            int define(ir::value_id v, ir::dtype t)
            {
                auto out = std::find(m_prog.m_outputs.begin(), m_prog.m_outputs.end(), v);
                const int r = out != m_prog.m_outputs.end()
                                  ? new_reg(t, reg_kind::output,
                                            static_cast<int>(out - m_prog.m_outputs.begin()))
                                  : new_reg(t, reg_kind::temp, m_prog.m_num_temps++);
                m_value_reg[v] = r;
                return r;
            }

            // Register r converted to t (a cast into a temporary, made once).
            int as(int r, ir::dtype t)
            {
                if (m_prog.m_regs[static_cast<std::size_t>(r)].elem == t)
                {
                    return r;
                }
                auto key = std::make_pair(r, t);
                auto it = m_casts.find(key);
                if (it != m_casts.end())
                {
                    return it->second;
                }
                ew_instr ins;
                ins.loop = cast_loop(m_prog.m_regs[static_cast<std::size_t>(r)].elem, t);
                ins.num_args = 2;
                ins.args[0] = r;
                ins.args[1] = new_reg(t, reg_kind::temp, m_prog.m_num_temps++);
                m_prog.m_code.push_back(ins);
                m_casts[key] = ins.args[1];
                return ins.args[1];
            }

            const ir::graph& m_graph;
            const loop_source& m_loops;
            ew_program m_prog;
            std::map<ir::value_id, int> m_value_reg;
            std::map<std::pair<int, ir::dtype>, int> m_casts;
        };
    } // namespace

    ufunc_loop select_loop(ir::op code, ir::dtype loop_dtype, const loop_source& loops)
    {
        if (loops.p_numpy != nullptr && numpy_loop_allowed(code, loop_dtype))
        {
            if (ufunc_loop l = loops.p_numpy->find(code, loop_dtype))
            {
                return l;
            }
        }
        return loops.use_builtin ? builtin_loop(code, loop_dtype) : ufunc_loop{};
    }

    result<ew_program> build_program(const ir::graph& g, const std::vector<const ir::node*>& nodes,
                                     const std::vector<ir::value_id>& outputs,
                                     const loop_source& loops)
    {
        builder b(g, outputs, loops);
        for (const ir::node* n : nodes)
        {
            if (!ir::has(n->code, ir::prop::ELEMENTWISE) || n->outputs.size() != 1)
            {
                return status::unimplemented("not an elementwise node");
            }
            if (status st = b.add(*n); !st)
            {
                return st;
            }
        }
        ew_program prog = b.take();
        if (prog.m_regs.size() > max_registers)
        {
            return status::unimplemented("elementwise program with more than " +
                                         std::to_string(max_registers) + " registers");
        }
        return prog;
    }
} // namespace specula::backends::cpu
