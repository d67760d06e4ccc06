"""Mutant schemata for tools/mutate.py: every mutant of a module in one copy of its source,
each chosen at run time, so that one Verilator build holds them all.

A mutant of tools/mutate.py replaces one line by the same line with one token changed. Here
the smallest expression that holds the change and can be computed at run time is written as

    ((ptxfma_mutant_pkg::sel == K) ? (<the expression, mutated>) : (<the expression>))

so mutant K runs when the simulator is started with `+ptxfma_mutant=K` (`fma-cosim run
--plusarg`), and the design as it is with no plusarg (sel 0). The expression is found in the
syntax tree of pyslang (slang's parser), never by text:

- *Constant contexts* (a part-select's bounds, a cast's width, a replication count, a
  declaration, a parameter, a generate construct, `$bits`/`$clog2`) cannot hold a run-time
  choice, so the choice moves out to the nearest expression around them.
- *Widths.* A conditional is transparent to Verilog's width rules where its context sets the
  width (an operand of arithmetic, a comparison, an assignment), but not where the operand is
  self-determined: a concatenation, a reduction, `$signed`. A change of width (a bound, a
  cast, a sized literal) therefore moves the choice out of such operands too, so each mutant
  computes what its `ifdef MUT_<K>` twin would.
- What cannot be chosen at run time (an assignment's target, a declaration, an output port's
  connection) is left to that twin: such a site is *compiled*, one variant of its own, as
  before.

Python standard library and pyslang (the project's venv, python/requirements-dev.txt).
"""

import pyslang.syntax as ps

SyntaxKind = ps.SyntaxKind

# The package that holds the selector, prepended to the mutated copy's files.txt.
PACKAGE_FILE = "ptxfma_mutant_pkg.sv"
PACKAGE = """// Written by tools/mutate_schemata.py: which mutant runs (0: none), from +ptxfma_mutant=K.
package ptxfma_mutant_pkg;
  int unsigned sel;
endpackage
"""
# Read once at time 0 in the top of each design that holds mutants.
INITIAL = ("  initial begin\n    if (!$value$plusargs(\"ptxfma_mutant=%d\", ptxfma_mutant_pkg::sel)) "
           "ptxfma_mutant_pkg::sel = 0;\n  end\n")

K = SyntaxKind
# Parents whose operand's width is its own (self-determined): a wider mutated operand would
# change the result, where a conditional's zero-extension would not show it.
SELF_DETERMINED = {
    K.ConcatenationExpression, K.MultipleConcatenationExpression,
    K.UnaryBitwiseAndExpression, K.UnaryBitwiseNandExpression, K.UnaryBitwiseOrExpression,
    K.UnaryBitwiseNorExpression, K.UnaryBitwiseXorExpression, K.UnaryBitwiseXnorExpression,
    K.SignedCastExpression, K.InvocationExpression, K.ArgumentList, K.OrderedArgument,
    K.NamedArgument,
}
# Operators whose result is as wide as their operands, in the width their context gives them.
WIDTH_PASSING = {
    K.ParenthesizedExpression, K.AddExpression, K.SubtractExpression, K.MultiplyExpression,
    K.DivideExpression, K.ModExpression, K.BinaryAndExpression, K.BinaryOrExpression,
    K.BinaryXorExpression, K.BinaryXnorExpression, K.UnaryMinusExpression,
    K.UnaryPlusExpression, K.UnaryBitwiseNotExpression,
}
SHIFTS = {K.LogicalShiftLeftExpression, K.LogicalShiftRightExpression,
          K.ArithmeticShiftLeftExpression, K.ArithmeticShiftRightExpression}


def _passes_width(parent, child):
    """Whether `parent`'s width follows its operand `child`'s: an arithmetic or bitwise
    operator, a conditional's arm, a shift's shifted operand."""
    if parent.kind in WIDTH_PASSING:
        return True
    if parent.kind == K.ConditionalExpression:
        return child.kind != K.ConditionalPredicate
    if parent.kind in SHIFTS:
        return child is _children(parent)[0]
    return False
# Where a run-time value can never go.
DECLARATIONS = {
    K.ParameterDeclaration, K.ParameterDeclarationStatement, K.TypeParameterDeclaration,
    K.ParameterValueAssignment, K.DataDeclaration, K.NetDeclaration, K.TypedefDeclaration,
    K.IfGenerate, K.LoopGenerate, K.CaseGenerate, K.GenvarDeclaration, K.PortDeclaration,
    K.ImplicitAnsiPort, K.VariableDimension, K.FunctionPrototype,
}
ASSIGNMENTS = {k for k in K.__members__.values() if k.name.endswith("AssignmentExpression")}
# Operators of tools/mutate.py that change a width.
WIDTH_OPERATORS = {"range msb +1", "range lsb -1", "width const +1", "width const -1",
                   "[Name-1] -> [Name-2]", "[msb:Name] lsb -1", "(A - B) width +1",
                   "Name'( cast -> (Name-1)'("}


def _children(node):
    return [c for c in node if isinstance(c, ps.SyntaxNode)]


def _span(node):
    r = node.sourceRange
    return r.start.offset, r.end.offset


def _is_expression(node):
    return (isinstance(node, ps.ExpressionSyntax) and not isinstance(node, ps.DataTypeSyntax)
            and node.kind not in ASSIGNMENTS)


def _constant_child(parent, child):
    """Whether `child`, an operand of `parent`, must be a constant."""
    k = parent.kind
    # A part of a dotted name (`a.sig[7:0]`, `g_row[0].hi`) is no value of its own, and an
    # index into a generate scope must be constant: the choice takes the whole name.
    if k in (K.SimpleRangeSelect, K.ScopedName):
        return True
    # A loop's bounds, when it makes non-blocking writes: Verilator unrolls such a loop (of
    # writes to an array) and cannot when its condition is a run-time value.
    if k == K.ForLoopStatement and not isinstance(child, ps.StatementSyntax):
        return any(n.kind == K.NonblockingAssignmentExpression for n in _walk(parent))
    if k in (K.AscendingRangeSelect, K.DescendingRangeSelect):  # base +: width
        return child is not _children(parent)[0]
    if k == K.CastExpression:  # Width'(operand)
        return child is _children(parent)[0]
    if k == K.MultipleConcatenationExpression:  # {count{...}}
        return child is _children(parent)[0]
    if k == K.InvocationExpression:
        name = str(_children(parent)[0]).strip()
        return name in ("$bits", "$clog2", "$size", "$high", "$low")
    return isinstance(parent, ps.DataTypeSyntax) or k in DECLARATIONS


def _path(root, start, end):
    """The nodes from the root down to the innermost one holding [start, end)."""
    path = [root]
    while True:
        inner = None
        for c in _children(path[-1]):
            s, e = _span(c)
            if s <= start and end <= e and (s < e):
                inner = c
                break
        if inner is None:
            return path
        path.append(inner)


def _walk(node):
    yield node
    for c in _children(node):
        yield from _walk(c)


def _function_name(decl):
    proto = next(c for c in _children(decl) if c.kind == K.FunctionPrototype)
    return str(proto.name).strip()


def constant_functions(root):
    """The names of the functions an elaboration-time value calls, directly or through another
    function: their bodies cannot read the run-time selector."""
    bodies = {_function_name(n): n for n in _walk(root) if n.kind == K.FunctionDeclaration}

    def called(node):
        return {str(_children(n)[0]).strip() for n in _walk(node)
                if n.kind == K.InvocationExpression} & set(bodies)
    found = set()
    for n in _walk(root):
        if n.kind in (K.ParameterDeclaration, K.LoopGenerate, K.IfGenerate, K.CaseGenerate,
                      K.VariableDimension):
            found |= called(n)
    todo = list(found)
    while todo:
        for g in called(bodies[todo.pop()]) - found:
            found.add(g)
            todo.append(g)
    return found


def choice_point(root, start, end, width_change, constant_fns=frozenset()):
    """The node whose text becomes the run-time choice for a change of [start, end), or None
    when the change cannot be chosen at run time (see the module's doc)."""
    path = _path(root, start, end)
    if any(n.kind == K.FunctionDeclaration and _function_name(n) in constant_fns for n in path):
        return None
    # Innermost expression first; `at` indexes path.
    at = next((i for i in range(len(path) - 1, -1, -1) if _is_expression(path[i])), None)
    if at is None:
        return None
    moved = False
    while True:
        # A constant context anywhere above `at` pushes the choice above it.
        boundary = None
        for i in range(at, 0, -1):
            if _constant_child(path[i - 1], path[i]):
                boundary = i - 1
                break
            if isinstance(path[i - 1], (ps.StatementSyntax, ps.MemberSyntax)):
                break
        if boundary is None:
            break
        up = next((i for i in range(boundary, -1, -1) if _is_expression(path[i])), None)
        if up is None:
            return None
        # Only expressions between the boundary and the statement count.
        if any(path[j].kind in DECLARATIONS or isinstance(path[j], ps.DataTypeSyntax)
               for j in range(up, boundary + 1)):
            return None
        at, moved = up, True
    if width_change or moved:
        # Up through what passes its operand's width on, to what fixes it: an assignment, a
        # comparison, a condition. A self-determined operand on the way takes the choice with it
        # (`{s, c ? x[30:0] : y}`: a wider arm widens the concatenation).
        i = at
        while i > 0:
            parent, child = path[i - 1], path[i]
            if parent.kind in SELF_DETERMINED:
                up = next((j for j in range(i - 1, -1, -1) if _is_expression(path[j])), None)
                if up is None:
                    return None
                at = i = up
            elif _passes_width(parent, child):
                i -= 1
            else:
                break
    # An assignment's target, or what an output port drives, is not a value.
    for i in range(at, 0, -1):
        parent = path[i - 1]
        if parent.kind in ASSIGNMENTS:
            if path[i] is _children(parent)[0]:
                return None
            break
        if parent.kind == K.ElementSelect:  # an index is a value even inside a target
            break
        if parent.kind == K.NamedPortConnection:
            name = str(parent).strip().lstrip(".").split("(")[0].strip()
            if name.endswith("_o"):
                return None
            break
    return path[at]


def changed_span(old, new):
    """(p, old end, new end): `old` and `new` differ only in old[p:old end] -> new[p:new end]."""
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    q = 0
    while q < min(len(old), len(new)) - p and old[-1 - q] == new[-1 - q]:
        q += 1
    return p, len(old) - q, len(new) - q


def plan(text, sites):
    """Splits `sites` of one file, [(k, line index, operator, old line, new line)], into
    run-time choices and compiled ones. Returns (edits, runtime ks, compiled ks), the edits
    [(start, end, replacement)] disjoint and in the file's offsets."""
    tree = ps.SyntaxTree.fromText(text)
    constant_fns = constant_functions(tree.root)
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    groups = {}  # (start, end) of the chosen node -> [(k, abs start, abs end, new text)]
    compiled = []
    for k, i, op, old, new in sites:
        p, oe, ne = changed_span(old, new)
        a, b = starts[i] + p, starts[i] + oe
        node = choice_point(tree.root, a, max(b, a + 1) if a == b else b, op in WIDTH_OPERATORS,
                            constant_fns)
        if node is None:
            compiled.append(k)
            continue
        groups.setdefault(_span(node), []).append((k, a, b, new[p:ne]))
    # Nodes are nested or apart: a group inside another joins the outer one.
    spans = sorted(groups, key=lambda s: (s[0], -s[1]))
    outer = []
    for s in spans:
        if outer and s[0] >= outer[-1][0] and s[1] <= outer[-1][1]:
            groups[outer[-1]] += groups.pop(s)
        else:
            outer.append(s)
    edits, runtime = [], []
    for (s, e) in outer:
        orig = text[s:e]
        arms = []
        for k, a, b, repl in sorted(groups[(s, e)]):
            mutated = orig[: a - s] + repl + orig[b - s:]
            arms.append(f"(ptxfma_mutant_pkg::sel == {k}) ? ({mutated}) : ")
            runtime.append(k)
        edits.append((s, e, "(" + "".join(arms) + f"({orig}))"))
    return edits, sorted(runtime), sorted(compiled)


def apply(text, edits):
    """`text` with the disjoint `edits` made."""
    out, at = [], 0
    for s, e, repl in sorted(edits):
        out.append(text[at:s])
        out.append(repl)
        at = e
    out.append(text[at:])
    return "".join(out)
