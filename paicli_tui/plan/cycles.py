"""Finding dependency cycles in linear time, so a cycle deep in a large plan
is named in the error (P-3.2 rule 9).

Nodes are array positions ``0..n-1``; ``edges[v]`` lists the positions ``v``
depends on, in the order they were written.
"""

from __future__ import annotations

from collections import deque


def strongly_connected_components(edges: list[list[int]]) -> list[list[int]]:
    """Tarjan's algorithm, iterative so a 10,000-task chain cannot overflow
    the Python stack."""
    count = len(edges)
    index: list[int | None] = [None] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in range(count):
        if index[root] is not None:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, 0)]
        while work:
            node, next_edge = work[-1]
            if next_edge < len(edges[node]):
                work[-1] = (node, next_edge + 1)
                target = edges[node][next_edge]
                if index[target] is None:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack[target] = True
                    work.append((target, 0))
                elif on_stack[target]:
                    low[node] = min(low[node], index[target])  # type: ignore[arg-type]
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[int] = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


def _shortest_cycle_through(start: int, members: set[int], edges: list[list[int]]) -> list[int]:
    """Breadth-first search inside one component from ``start`` back to it;
    returns ``[start, …, start]``."""
    parent: dict[int, int] = {}
    queue = deque([start])
    seen = {start}
    while queue:
        node = queue.popleft()
        for target in edges[node]:
            if target == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                path.reverse()
                return path + [start]
            if target in members and target not in seen:
                seen.add(target)
                parent[target] = node
                queue.append(target)
    raise AssertionError("a strongly connected component always has a cycle")


def find_cycles(edges: list[list[int]]) -> list[list[int]]:
    """One cycle per cyclic component (self-dependencies included), each
    starting and ending at the component's earliest task, ordered by that
    task's position."""
    cycles = []
    for component in strongly_connected_components(edges):
        start = min(component)
        if len(component) == 1 and start not in edges[start]:
            continue
        cycles.append(_shortest_cycle_through(start, set(component), edges))
    cycles.sort(key=lambda cycle: cycle[0])
    return cycles
