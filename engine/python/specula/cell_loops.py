"""Loops in notebook cells as engine regions.

An IPython AST transformer turns every ``for``/``while`` loop at a cell's
module level (and the loops nested in them) into::

    if __specula_loop_live__(7):            # once per loop start
        for x in it:
            if __specula_loops__[7] and __specula_loop__(7):   # the engine ran this iteration
                if __specula_loop_broke__():    # ... and it took a ``break``
                    break
                continue
            <the original body>
        else:
            <the original else>
    else:                                   # engine off, or the region
        <the original loop>                 # went back to CPython for good

The four names live in ``builtins`` (the engine puts them there), so a cell
gains no global name. Everything else stays
CPython's: the iteration protocol, the loop variable, ``while`` conditions,
``else`` clauses, and the body itself whenever the engine answers False, with
its own line numbers, so exceptions and tracebacks are exactly CPython's.

Functions, lambdas and class bodies are not entered: functions are regions of
their own (the frame hook), and class bodies do not bind globals.
"""
import ast
import copy

LIVE = "__specula_loop_live__"
MARK = "__specula_loop__"
FLAGS = "__specula_loops__"
BROKE = "__specula_loop_broke__"

# id -> (name, line, original body statements, names the body mentions)
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


def _names_in(statements):
    names = set()
    for stmt in statements:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name):
                names.add(node.id)
    return sorted(names)


def _register(original, cell_number):
    key = ast.dump(original, include_attributes=True)
    found = _ids.get(key)
    if found is not None:
        return found
    loop_id = len(_loops)
    where = "line %d" % original.lineno
    name = "In [%d], %s" % (cell_number, where) if cell_number is not None else "cell loop, " + where
    _loops.append((name, original.lineno, original.body, _names_in(original.body)))
    _flags.append(True)
    _ids[key] = loop_id
    return loop_id


def _marker(loop_id, at):
    """The statement put at the top of a loop body, located at the body's
    first statement (the line CPython would be on)."""
    flag = ast.Subscript(value=ast.Name(id=FLAGS, ctx=ast.Load()), slice=ast.Constant(value=loop_id), ctx=ast.Load())
    entry = ast.Call(func=ast.Name(id=MARK, ctx=ast.Load()), args=[ast.Constant(value=loop_id)], keywords=[])
    call = ast.BoolOp(op=ast.And(), values=[flag, entry])
    broke = ast.Call(func=ast.Name(id=BROKE, ctx=ast.Load()), args=[], keywords=[])
    stmt = ast.If(test=call, body=[ast.If(test=broke, body=[ast.Break()], orelse=[]), ast.Continue()], orelse=[])
    for node in ast.walk(stmt):
        ast.copy_location(node, at)
        if hasattr(node, "end_lineno"):
            node.end_lineno = at.lineno
            node.end_col_offset = at.col_offset
    return stmt


class loop_transformer(ast.NodeTransformer):
    """Marks the loops of a cell's module level as engine regions."""

    def __init__(self, shell=None):
        super().__init__()
        self.m_shell = shell


    def _cell_number(self):
        return getattr(self.m_shell, "execution_count", None) if self.m_shell is not None else None

    def _skip(self, node):
        return node

    visit_FunctionDef = _skip
    visit_AsyncFunctionDef = _skip
    visit_ClassDef = _skip
    visit_Lambda = _skip

    def _loop(self, node):
        original = copy.deepcopy(node)
        self.generic_visit(node)  # nested loops become regions too
        if not node.body:
            return node
        loop_id = _register(original, self._cell_number())
        plain = copy.deepcopy(node)
        node.body.insert(0, _marker(loop_id, node.body[0]))
        # Chosen once per loop start: a loop whose region went back to
        # CPython for good (or the engine off) runs without any call per
        # iteration.
        test = ast.Call(func=ast.Name(id=LIVE, ctx=ast.Load()), args=[ast.Constant(value=loop_id)], keywords=[])
        choice = ast.If(test=test, body=[node], orelse=[plain])
        for part in (choice, test, test.func, test.args[0]):
            ast.copy_location(part, node)
            part.end_lineno = node.lineno
            part.end_col_offset = node.col_offset
        choice.end_lineno, choice.end_col_offset = node.end_lineno, node.end_col_offset
        return choice

    visit_For = _loop
    visit_While = _loop


def install(shell):
    """Puts the engine's loop entry points into builtins and the transformer
    into ``shell.ast_transformers`` (once). Returns True when installed."""
    try:
        import _specula_engine as engine
    except ImportError:
        from . import _engine as engine
    engine.install_loop_builtins(_flags)
    if not any(isinstance(t, loop_transformer) for t in shell.ast_transformers):
        shell.ast_transformers.append(loop_transformer(shell))
    return True
