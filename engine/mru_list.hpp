// A short most-recently-used list: the per-region cache of specialisations.
// The winner of a lookup moves to the front; a full list drops its tail.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace specula::engine
{
    template <class T>
    class mru_list
    {
    public:
        explicit mru_list(std::size_t capacity) : m_capacity(capacity) {}

        std::size_t size() const { return m_items.size(); }
        bool empty() const { return m_items.empty(); }
        bool full() const { return m_items.size() >= m_capacity; }
        T& operator[](std::size_t i) { return m_items[i]; }
        const T& operator[](std::size_t i) const { return m_items[i]; }

        // Inserts at the front; when full, the least recently used entry goes.
        void push_front(T item)
        {
            if (m_capacity == 0)
            {
                return;
            }
            if (full())
            {
                m_items.pop_back();
            }
            m_items.insert(m_items.begin(), std::move(item));
        }

        void move_to_front(std::size_t i)
        {
            if (i == 0 || i >= m_items.size())
            {
                return;
            }
            T item = std::move(m_items[i]);
            m_items.erase(m_items.begin() + static_cast<std::ptrdiff_t>(i));
            m_items.insert(m_items.begin(), std::move(item));
        }

        void erase(std::size_t i) { m_items.erase(m_items.begin() + static_cast<std::ptrdiff_t>(i)); }
        void clear() { m_items.clear(); }

    private:
        std::size_t m_capacity;
        std::vector<T> m_items;
    };
} // namespace specula::engine
