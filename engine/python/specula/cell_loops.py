"""Loops in notebook cells as engine regions.

An IPython AST transformer turns every ``for``/``while`` loop at a cell's
module level (and the loops nested in them) into::

    if __specula_loop_live__(7):            # once per loop start
        for x in __specula_iter__(7, it):   # iter(it), wrapped; a range, list, tuple, enumerate, zip, array is recorded
            if __specula_loops__[7] and __specula_loop__(7):   # the engine ran this iteration
                if __specula_loop_broke__():    # ... or, in chunks, the next ones
                    break
                continue
            <the original body>
        else:
            <the original else>
    else:                                   # engine off, or the region
        <the original loop>                 # went back to CPython for good

A ``for`` loop over a ``range``, a list or a tuple, ``enumerate`` or ``zip``
of those, or an array's rows, whose iterations keep running as graphs runs
in chunks: one graph runs the next K iterations,
commits them, advances the iterator past them (``__specula_iter__`` gave the
engine that iterator) and binds the target to the last value, so CPython's
``for`` goes on at the next iteration and never runs a committed one again.
A stable ``while`` loop runs in chunks too: one graph runs the iteration
being entered and then, up to K-1 times, evaluates the test and runs the
body again while it holds; after the commit the marker's ``continue`` lets
CPython evaluate the test once more (engine/while_chunks.cpp: the test must
be free of effects). Other iterables run iteration by iteration.

The marker for a loop over anything else, or with another target, is the
same, without chunks:

    if __specula_loop_live__(7):
        for x in __specula_iter__(7, it):
            if __specula_loops__[7] and __specula_loop__(7):   # the engine ran this iteration
                if __specula_loop_broke__():    # ... and it took a ``break``
                    break
                continue
            <the original body>
        else:
            <the original else>
    else:                                   # engine off, or the region
        <the original loop>                 # went back to CPython for good

At a cell's module level a loop without ``else:`` is followed (inside the
live branch) by ``__specula_loop_done__(7)``, which ends the timing of the
last iteration when CPython ran it.

A cell is a region too (kind "cell", for cells run again): its statements up
to a displayed last expression run as ``if not (__specula_loops__[3] and
__specula_loop__(3)): <statements>; __specula_loop_done__(3)``.

The names live in ``builtins`` (the engine puts them there), so a cell
gains no global name. Everything else stays
CPython's: the iteration protocol, the loop variable, ``while`` conditions,
``else`` clauses, and the body itself whenever the engine answers False, with
its own line numbers, so exceptions and tracebacks are exactly CPython's.

Functions defined at a cell's module level are entered too (on-stack
replacement): their ``for``/``while`` loops get the same marker, so a
function called once with a long loop has that loop compiled (kind "loop",
named "f, line k"). There the engine reads the loop's locals from the
function's frame and writes back the ones an iteration assigns. Generator,
async and decorated functions (a decorator may read the code: numba, ...)
and functions that use ``locals``/``vars``/``eval``/``exec`` (the engine
goes through the frame's locals dict) are left as written, and so are nested functions, lambdas and class bodies
(functions are regions of their own through the frame hook, and class
bodies do not bind globals).
"""
import ast
import collections

LIVE = "__specula_loop_live__"
MARK = "__specula_loop__"
FLAGS = "__specula_loops__"
BROKE = "__specula_loop_broke__"
ITER = "__specula_iter__"
DONE = "__specula_loop_done__"

# id -> (name, line, original statements, names they mention,
#        "loop" | "cell" | "function_loop", names the statements bind,
#        the names a `for` loop's target binds: its counter,
#        a tuple target's names in order (_chunk_target), else [],
#        a `while` loop's test (chunks, engine/while_chunks.cpp), else None)
_loops = []
# id -> whether iterations still enter the engine; builtins.__specula_loops__.
# The engine sets an entry to False when the region goes back to CPython for
# good, so the rest of a running loop costs one list lookup per iteration.
_flags = []
# ast.dump of the original loop (with locations) -> id: a cell run again with
# the same source reaches the same region.
_ids = {}


def describe(loop_id):
    """What the engine needs to create loop region ``loop_id``."""
    return _loops[loop_id]


def _clone(node):
    """A deep copy of an AST: nodes and lists copied, leaves (identifiers,
    constants, locations) shared, as they are immutable. Several times
    faster than copy.deepcopy, which the transformer pays on every cell."""
    if isinstance(node, list):
        return [_clone(item) for item in node]
    if not isinstance(node, ast.AST):
        return node
    cls = node.__class__
    copied = cls.__new__(cls)
    for name in node._fields:
        if hasattr(node, name):
            setattr(copied, name, _clone(getattr(node, name)))
    for name in node._attributes:
        if hasattr(node, name):
            setattr(copied, name, getattr(node, name))
    return copied


def _names_in(statements):
    names = set()
    for stmt in statements:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name):
                names.add(node.id)
    return sorted(names)


# Nested scopes: the names they bind are not the enclosing function's.
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def _bound_in(statements):
    """The names the statements bind in their own scope (assignment and loop
    targets, `del`): what a loop iteration in a function may change among
    the function's locals."""
    names = set()
    todo = list(statements)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return sorted(names)


def _register(kind, key, name, line, statements, targets=(), order=(), test=None):
    key = kind + ":" + key
    found = _ids.get(key)
    if found is not None:
        return found
    region_id = len(_loops)
    # A `while` test's names are the loop's too: a chunk evaluates the test.
    mentioned = _names_in(statements + ([test] if test is not None else []))
    _loops.append((name, line, statements, mentioned, kind, _bound_in(statements),
                   sorted(targets), list(order), test))
    _flags.append(True)
    _ids[key] = region_id
    return region_id


def _register_loop(original, cell_number, function=None):
    where = "line %d" % original.lineno
    if function is not None:
        name, kind = "%s, %s" % (function, where), "function_loop"
    else:
        name, kind = ("In [%d], %s" % (cell_number, where) if cell_number is not None
                      else "cell loop, " + where), "loop"
    key = (function or "") + ":" + ast.dump(original, include_attributes=True)
    targets = _bound_in([original.target]) if isinstance(original, ast.For) else []
    names = _chunk_target(original.target) if isinstance(original, ast.For) else None
    order = names if names and len(names) > 1 else []
    test = original.test if isinstance(original, ast.While) else None
    return _register(kind, key, name, original.lineno, original.body, targets, order, test)


def _chunk_target(target):
    """The names a `for` target binds, in order, when the engine may run the
    loop in chunks: one name, or a flat tuple of distinct names (`for w, b
    in layers`); None otherwise."""
    if isinstance(target, ast.Name):
        return [target.id]
    if (isinstance(target, ast.Tuple) and len(target.elts) > 1
            and all(isinstance(e, ast.Name) for e in target.elts)):
        names = [e.id for e in target.elts]
        return names if len(set(names)) == len(names) else None
    return None


def _register_cell(statements, cell_number):
    key = ast.dump(ast.Module(body=statements, type_ignores=[]), include_attributes=True)
    name = "In [%d]" % cell_number if cell_number is not None else "cell"
    return _register("cell", key, name, statements[0].lineno, statements)


# Statements that keep a cell out of cell regions: never convertible, or
# (imports from __future__, top-level await) not allowed inside an `if`.
_NOT_IN_CELL_REGIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
                        ast.Global, ast.Nonlocal, ast.Await, ast.AsyncFor, ast.AsyncWith, ast.Yield,
                        ast.YieldFrom)


def _cell_candidate(statements):
    return bool(statements) and not any(isinstance(n, _NOT_IN_CELL_REGIONS)
                                        for stmt in statements for n in ast.walk(stmt))


def _call(name, region_id):
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[ast.Constant(value=region_id)], keywords=[])


def _entry_test(region_id):
    """`__specula_loops__[id] and __specula_loop__(id)`"""
    flag = ast.Subscript(value=ast.Name(id=FLAGS, ctx=ast.Load()), slice=ast.Constant(value=region_id),
                         ctx=ast.Load())
    return ast.BoolOp(op=ast.And(), values=[flag, _call(MARK, region_id)])


def _locate(tree, at, end_at=None):
    end_at = end_at or at
    for node in ast.walk(tree):
        node.lineno, node.col_offset = at.lineno, at.col_offset
        node.end_lineno, node.end_col_offset = end_at.end_lineno, end_at.end_col_offset
    return tree


def _marker(loop_id, at):
    """The statement put at the top of a loop body, located at the body's
    first statement (the line CPython would be on)."""
    call = _entry_test(loop_id)
    broke = ast.Call(func=ast.Name(id=BROKE, ctx=ast.Load()), args=[], keywords=[])
    stmt = ast.If(test=call, body=[ast.If(test=broke, body=[ast.Break()], orelse=[]), ast.Continue()], orelse=[])
    for node in ast.walk(stmt):
        ast.copy_location(node, at)
        if hasattr(node, "end_lineno"):
            node.end_lineno = at.lineno
            node.end_col_offset = at.col_offset
    return stmt


# Builtins that hand the frame's locals dict to the program: the engine uses
# that dict to read and write a running function's locals, and a dict the
# program kept would see it.
_NAMESPACE_READERS = {"locals", "vars", "eval", "exec"}


def _reads_frame_namespace(function):
    return any(isinstance(n, ast.Name) and n.id in _NAMESPACE_READERS for n in ast.walk(function))


def _is_generator(function):
    """A `yield` in the function's own scope (not in nested ones)."""
    todo = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return False


class loop_transformer(ast.NodeTransformer):
    """Marks the loops of a cell's module level as engine regions."""

    # Transformed cells kept for cells run again (most recent last).
    CACHE_SIZE = 64

    def __init__(self, shell=None):
        super().__init__()
        self.m_shell = shell
        self.m_function = None  # the cell-level function whose loops are visited
        # The tree the shell's compiler parsed last and what it parsed it
        # from (watch_parser), and the transformed trees by that key.
        self.m_parsed = None
        self.m_done = collections.OrderedDict()

    def watch_parser(self, compiler):
        """Wraps ``compiler.ast_parse`` (IPython's CachingCompiler) to learn
        the source of each tree it parses: a cell run again with the same
        source then gets its transformed tree from the cache instead of
        being copied, dumped and transformed again (milliseconds a cell)."""
        parse = compiler.ast_parse

        def ast_parse(source, *args, **kwargs):
            tree = parse(source, *args, **kwargs)
            self.m_parsed = (tree, (source, args, tuple(sorted(kwargs.items())), compiler.flags))
            return tree

        compiler.ast_parse = ast_parse

    def _cache_key(self, node):
        """The key of a tree the compiler just parsed, when the result may
        be cached: this transformer is the shell's only one (another could
        change the tree before or after it)."""
        parsed, self.m_parsed = self.m_parsed, None
        if parsed is None or parsed[0] is not node or self.m_shell is None:
            return None
        transformers = getattr(self.m_shell, "ast_transformers", None)
        if not transformers or any(t is not self for t in transformers):
            return None
        return parsed[1] + (getattr(self.m_shell, "ast_node_interactivity", "last_expr"),)

    def visit(self, node):
        if not isinstance(node, ast.Module):
            return super().visit(node)
        key = self._cache_key(node)
        done = self.m_done.get(key) if key is not None else None
        if done is None:
            done = super().visit(node)
            if key is None:
                return done
            self.m_done[key] = done
            if len(self.m_done) > self.CACHE_SIZE:
                self.m_done.popitem(last=False)
        else:
            self.m_done.move_to_end(key)
        # Shared statements, a list of its own: IPython may append to the
        # body (last_expr_or_assign) but never changes a statement.
        return ast.Module(body=list(done.body), type_ignores=list(done.type_ignores))


    def _cell_number(self):
        return getattr(self.m_shell, "execution_count", None) if self.m_shell is not None else None

    def _skip(self, node):
        return node

    def visit_FunctionDef(self, node):
        """Loops in a function defined at the cell's module level become
        regions too (on-stack replacement), unless the function is a
        generator or decorated; nested functions are not entered."""
        if (self.m_function is not None or node.decorator_list or _is_generator(node)
                or _reads_frame_namespace(node)):
            return node
        self.m_function = node.name
        try:
            self.generic_visit(node)
        finally:
            self.m_function = None
        return node

    visit_AsyncFunctionDef = _skip
    visit_ClassDef = _skip
    visit_Lambda = _skip

    def _loop(self, node):
        original = _clone(node)
        self.generic_visit(node)  # nested loops become regions too
        if not node.body:
            return node
        loop_id = _register_loop(original, self._cell_number(), self.m_function)
        plain = _clone(node)
        node.body.insert(0, _marker(loop_id, node.body[0]))
        if isinstance(node, ast.For):
            # The engine gets the iterator CPython's `for` holds, so a
            # chunk of iterations can move it on (never a committed
            # iteration twice), and gives CPython a wrapper of it that
            # raises an interrupt taken at a marker after the body ran
            # (engine/loop_iterator.hpp: the target is already bound there).
            call = ast.Call(func=ast.Name(id=ITER, ctx=ast.Load()), args=[ast.Constant(value=loop_id), node.iter],
                            keywords=[])
            for part in (call, call.func, call.args[0]):
                ast.copy_location(part, node.iter)  # the iterable keeps its own locations
            node.iter = call
        # Chosen once per loop start: a loop whose region went back to
        # CPython for good (or the engine off) runs without any call per
        # iteration.
        test = ast.Call(func=ast.Name(id=LIVE, ctx=ast.Load()), args=[ast.Constant(value=loop_id)], keywords=[])
        body = [node]
        if self.m_function is None and not node.orelse:
            # The end of the loop ends the timing of its last iteration when
            # CPython ran it (the cost check's sample of that situation).
            # Not after an `else:` (its time is no iteration's), nor inside
            # functions (the profiling calls' line tracer reads their lines).
            body.append(_locate(ast.Expr(value=_call(DONE, loop_id)), node))
        choice = ast.If(test=test, body=body, orelse=[plain])
        for part in (choice, test, test.func, test.args[0]):
            ast.copy_location(part, node)
            part.end_lineno = node.lineno
            part.end_col_offset = node.col_offset
        choice.end_lineno, choice.end_col_offset = node.end_lineno, node.end_col_offset
        return choice

    visit_For = _loop
    visit_While = _loop

    def visit_Module(self, node):
        original = _clone(node.body)
        self.generic_visit(node)
        return self._cell_region(node, original)

    def _cell_region(self, node, original):
        """A cell run again is a region too: its statements up to the
        displayed last expression run as `if not (<entry>): <statements>;
        __specula_loop_done__(id)`, the last expression stays CPython's
        (IPython displays it as usual)."""
        if getattr(self.m_shell, "ast_node_interactivity", "last_expr") != "last_expr":
            return node  # other modes display expressions inside the head
        body = node.body
        n = len(body) - 1 if body and isinstance(body[-1], ast.Expr) else len(body)
        if not _cell_candidate(original[:n]):
            return node
        cell_id = _register_cell(original[:n], self._cell_number())
        done = _locate(ast.Expr(value=_call(DONE, cell_id)), body[n - 1])
        test = _locate(ast.UnaryOp(op=ast.Not(), operand=_entry_test(cell_id)), body[0])
        choice = ast.If(test=test, body=body[:n] + [done], orelse=[])
        choice.lineno, choice.col_offset = body[0].lineno, body[0].col_offset
        choice.end_lineno, choice.end_col_offset = body[n - 1].end_lineno, body[n - 1].end_col_offset
        node.body = [choice] + body[n:]
        return node


def install(shell):
    """Puts the engine's loop entry points into builtins and the transformer
    into ``shell.ast_transformers`` (once). Returns True when installed."""
    try:
        import _specula_engine as engine
    except ImportError:
        from . import _engine as engine
    engine.install_loop_builtins(_flags)
    if not any(isinstance(t, loop_transformer) for t in shell.ast_transformers):
        transformer = loop_transformer(shell)
        compiler = getattr(shell, "compile", None)
        if compiler is not None and hasattr(compiler, "ast_parse"):
            transformer.watch_parser(compiler)
        shell.ast_transformers.append(transformer)
    return True


# Chunks of a loop (engine/loop_chunks.cpp): an `if` whose test reads only
# the loop's target, int literals and `+ - * % //` and one comparison is
# decided for a whole chunk, which the engine ends before the first
# iteration that would take the other side.
_COUNTER_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Mod, ast.FloorDiv)
_COUNTER_COMPARE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _counter_names(target):
    """The names a counter test may read: one name, or a list of them (the
    target's names whose values are ints: an enumerate's count, ...)."""
    return [target] if isinstance(target, str) else list(target)


def _counter_expr(node, target):
    if isinstance(node, ast.Name):
        return node.id in _counter_names(target)
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.BinOp):
        return (isinstance(node.op, _COUNTER_OPS) and _counter_expr(node.left, target)
                and _counter_expr(node.right, target))
    return False


def _is_counter_test(test, target):
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], _COUNTER_COMPARE)
            and _counter_expr(test.left, target) and _counter_expr(test.comparators[0], target)
            and any(isinstance(n, ast.Name) for n in ast.walk(test)))


def _counter_ifs(statements, target):
    """The `if` statements of a loop body (outside nested scopes) whose test
    is a counter test, in a fixed order."""
    found = []
    todo = list(statements)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.If) and _is_counter_test(node.test, target):
            found.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return found


def counter_tests(statements, target):
    """The tests of the counter `if`s of a loop body (see _counter_ifs)."""
    return [node.test for node in _counter_ifs(statements, target)]


class _resolve(ast.NodeTransformer):
    def __init__(self, sides):
        self.m_sides = sides  # id of an `if` node of the copy -> the side it takes

    def visit_If(self, node):
        side = self.m_sides.get(id(node))
        self.generic_visit(node)
        if side is None:
            return node
        taken = node.body if side else node.orelse
        return taken or [ast.copy_location(ast.Pass(), node)]


def resolve_counter_tests(statements, target, outcomes):
    """A copy of the loop body with each counter `if` replaced by the side
    `outcomes` (in counter_tests' order) says it takes."""
    body = _clone(list(statements))
    sides = {id(node): bool(o) for node, o in zip(_counter_ifs(body, target), outcomes)}
    module = _resolve(sides).visit(ast.Module(body=body, type_ignores=[]))
    return module.body
