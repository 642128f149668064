"""test_layers.py: the source tree's layering: includes point down, and no file includes a file that includes it back.

Units are a .c file with the .h of the same name beside it (or a lone header). A unit depends on the units whose
headers any of its files include. The rooms and the runtime modules each may use come from CMakeLists.txt
(`set(WL_DEPS_<module> ...)`) and the design card's picture: cli/ (the front ends) over kernel/ (the Jupyter
kernel) over runtime/lang over the numerical modules over runtime/core.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def runtime_deps():
    """{module: set of runtime modules it may include}, transitively, from CMakeLists.txt."""
    text = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    modules = re.search(r"set\(WL_MODULES ([a-z ]+)\)", text).group(1).split()
    direct = {m: set() for m in modules}
    for m, deps in re.findall(r"set\(WL_DEPS_([a-z]+)\s+([^)]*)\)", text):
        direct[m] = {d for d in deps.split() if d in direct}
    closed = {}

    def close(m, seen=()):
        assert m not in seen, f"CMakeLists.txt: module dependencies loop through {m}"
        if m not in closed:
            closed[m] = set(direct[m])
            for d in direct[m]:
                closed[m] |= close(d, seen + (m,))
        return closed[m]

    for m in modules:
        close(m)
    return closed


def room_of(path):
    """The room a source file lives in: runtime/<module> (its subfolders belong to it), kernel, kernel/xeus, cli, wasm."""
    parts = path.split(os.sep)
    if parts[0] == "runtime":
        return "runtime/" + parts[1]
    if parts[0] == "kernel" and len(parts) > 2 and parts[1] == "xeus":
        return "kernel/xeus"
    return parts[0]


def sources():
    out = []
    for top in ("runtime", "kernel", "cli", "wasm"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith((".c", ".h", ".cpp")):
                    out.append(os.path.relpath(os.path.join(d, f), ROOT))
    return sorted(out)


def allowed_rooms():
    deps = runtime_deps()
    allowed = {f"runtime/{m}": {f"runtime/{d}" for d in ds} for m, ds in deps.items()}
    everything = set(allowed)
    allowed["kernel"] = everything
    allowed["kernel/xeus"] = everything | {"kernel"}
    allowed["cli"] = everything | {"kernel"}
    allowed["wasm"] = everything
    return allowed


def graph():
    files = sources()
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    edges = {}   # file -> set of included project files
    for f in files:
        inc = set()
        for name in INCLUDE.findall(open(os.path.join(ROOT, f), errors="replace").read()):
            here = os.path.normpath(os.path.join(os.path.dirname(f), name))
            if here in by_name.get(os.path.basename(name), []):
                inc.add(here)
            elif len(by_name.get(os.path.basename(name), [])) == 1:
                inc.add(by_name[os.path.basename(name)][0])
            else:
                assert os.path.basename(name) not in by_name, f"{f}: #include \"{name}\" is ambiguous: {by_name[os.path.basename(name)]}"
        edges[f] = inc
    return files, edges


def test_includes_point_down():
    files, edges = graph()
    allowed = allowed_rooms()
    wrong = []
    for f in files:
        room = room_of(f)
        assert room in allowed, f"{f}: a source file outside the known rooms ({sorted(allowed)})"
        for g in edges[f]:
            other = room_of(g)
            if other != room and other not in allowed[room]:
                wrong.append(f"{f} includes {g}: {room} may use only {sorted(allowed[room])}")
    assert not wrong, "\n".join(wrong)


def unit_of(path):
    return os.path.splitext(path)[0]


def test_no_unit_includes_a_unit_that_includes_it_back():
    files, edges = graph()
    deps = {}
    for f in files:
        u = unit_of(f)
        deps.setdefault(u, set())
        deps[u] |= {unit_of(g) for g in edges[f] if unit_of(g) != u}
    # Tarjan's strongly connected components: any with more than one unit is a circle.
    index, low, stack, on, circles = {}, {}, [], set(), []
    counter = [0]

    def visit(u):
        index[u] = low[u] = counter[0]
        counter[0] += 1
        stack.append(u)
        on.add(u)
        for v in sorted(deps.get(u, ())):
            if v not in index:
                visit(v)
                low[u] = min(low[u], low[v])
            elif v in on:
                low[u] = min(low[u], index[v])
        if low[u] == index[u]:
            comp = []
            while True:
                v = stack.pop()
                on.discard(v)
                comp.append(v)
                if v == u:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for u in sorted(deps):
        if u not in index:
            visit(u)
    assert not circles, "include circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_the_checks_see_the_tree():
    """The graph is not empty and holds the layering's known edges, so the checks above cannot pass vacuously."""
    files, edges = graph()
    assert len(files) > 80
    assert "runtime/core/wl_core.h" in edges["runtime/lang/wl_cmd.h"]
    assert any("runtime/lang/wl_lang.h" in e for e in edges.values())
