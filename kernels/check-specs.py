#!/usr/bin/env python3
"""Check the launch specs of the kernel suite against their kernels' sources.

Usage: check-specs.py [--bytes] SPEC.astra.json...

For each spec (docs/spec.md format) this checks, without a GPU:
  - the fields the format requires, and no unknown roles, dtypes or generators;
  - one argument per kernel parameter, in parameter order, with the parameter's
    name, a dtype that matches its C type, and a role that matches its
    constness (a pointer to const is "in"; a pointer to non-const is "out" or
    "inout");
  - a templated kernel named with an instantiation that the source explicitly
    instantiates;
  - every expression evaluates for every shape (all variables bound), counts
    and launch dimensions are positive, block <= 1024 threads (x, y <= 1024,
    z <= 64), grid.x < 2^31, grid.y and grid.z <= 65535, every buffer is
    under 1.5 GB, ranges are non-empty, a csr_indptr buffer has rows + 1
    elements, a csr_indices buffer names a csr_indptr argument, holds at
    least rows * max_degree elements and its range at least max_degree
    values.
  - the spec's "bytes", when given, is from 1 to the naive traffic below on
    every shape; per-output tolerances sit on out/inout buffers, and an
    integer output's takes only a whole atol.
With --bytes, prints for each kernel the naive traffic at each shape (every
in buffer read once, every out buffer written once, every inout buffer read
and written once), and beside it the spec's "bytes" where it differs.  The
naive figure is the bandwidth floor only for kernels that touch all of every
buffer; the kernels that read part of a buffer give "bytes" (kernels/README.md).
Exit status 0 when every spec passes, 1 otherwise.
"""

import ast
import json
import os
import re
import sys

DTYPE_SIZE = {
    "f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i8": 1, "u8": 1, "i16": 2,
    "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8, "fp8e4m3": 1,
    "fp8e5m2": 1,
}
C_TYPES = {
    "f32": {"float"}, "f64": {"double"}, "f16": {"__half", "half"},
    "bf16": {"__nv_bfloat16", "nv_bfloat16"}, "i8": {"int8_t", "signed char"},
    "u8": {"uint8_t", "unsigned char"}, "i16": {"int16_t", "short"},
    "u16": {"uint16_t", "unsigned short"}, "i32": {"int", "int32_t"},
    "u32": {"unsigned", "unsigned int", "uint32_t"},
    "i64": {"int64_t", "long long", "long"},
    "u64": {"uint64_t", "unsigned long long", "size_t"},
    "fp8e4m3": {"__nv_fp8_e4m3"}, "fp8e5m2": {"__nv_fp8_e5m2"},
}
SCALAR_DTYPES = {"i32", "u32", "i64", "u64", "f32", "f64"}
ROLES = {"in", "out", "inout"}
DISTS = {"normal", "uniform", "positive", "heavy", "small", "large"}
GENS = {"csr_indptr", "csr_indices", "distinct_per_row", "sorted",
        "permutation", "iota", "constant"}
KERNEL_FIELDS = {"kernel", "args", "grid", "block", "shared_bytes", "bytes",
                 "shapes", "vars", "tolerance", "noalias", "tunable"}
MAX_BUFFER_BYTES = 1.5e9


class SpecError(Exception):
    pass


def c_div(a, b):
    if b == 0:
        raise SpecError("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_mod(a, b):
    return a - b * c_div(a, b)


def evaluate(expr, env):
    """Evaluates a spec expression (integers, + - * / %, min, max, ceil_div)."""
    if isinstance(expr, bool):
        raise SpecError("boolean where an expression is expected")
    if isinstance(expr, int):
        return expr
    if not isinstance(expr, str):
        raise SpecError("expression %r is neither a string nor an integer" % (expr,))
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise SpecError("cannot parse expression %r" % expr)

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) \
                and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise SpecError("variable %r of %r is not bound" % (node.id, expr))
            return env[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, ast.Div):
                return c_div(a, b)
            if isinstance(node.op, ast.Mod):
                if b == 0:
                    raise SpecError("modulo by zero in %r" % expr)
                return c_mod(a, b)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and not node.keywords and len(node.args) == 2:
            a, b = ev(node.args[0]), ev(node.args[1])
            if node.func.id == "min":
                return min(a, b)
            if node.func.id == "max":
                return max(a, b)
            if node.func.id == "ceil_div":
                if b <= 0:
                    raise SpecError("ceil_div by %d in %r" % (b, expr))
                return c_div(a + b - 1, b)
        raise SpecError("unsupported construct in expression %r" % expr)

    return ev(tree)


def is_float_literal(text):
    try:
        float(text)
        return True
    except (TypeError, ValueError):
        return False


def parse_kernels(source):
    """Returns {name: (template_param or None, [(ctype, name), ...])}."""
    kernels = {}
    pattern = re.compile(
        r"(template\s*<\s*typename\s+(\w+)\s*>\s*)?"
        r"__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?"
        r"(\w+)\s*\(([^)]*)\)\s*\{")
    for m in pattern.finditer(source):
        tparam, name, params = m.group(2), m.group(3), m.group(4)
        plist = []
        for p in params.split(","):
            p = " ".join(p.split())
            if not p:
                continue
            pm = re.match(r"(.*?)(\w+)$", p)
            plist.append((pm.group(1).strip(), pm.group(2)))
        kernels[name] = (tparam, plist)
    return kernels


def explicit_instantiations(source, name):
    pattern = re.compile(
        r"template\s+__global__\s+void\s+" + re.escape(name) +
        r"\s*<\s*([^>]+?)\s*>\s*\(")
    return {" ".join(m.group(1).split()) for m in pattern.finditer(source)}


def check_param(arg, ctype, tparam, targ, where):
    """Checks one argument against the C type of its parameter."""
    t = ctype
    if tparam:
        t = re.sub(r"\b%s\b" % re.escape(tparam), targ, t)
    is_pointer = t.endswith("*")
    base = t.rstrip("*").strip()
    const = False
    if base.startswith("const "):
        const, base = True, base[len("const "):].strip()
    if base.endswith(" const"):
        const, base = True, base[: -len(" const")].strip()
    dtype = arg.get("dtype")
    if dtype not in DTYPE_SIZE:
        raise SpecError("%s: unknown dtype %r" % (where, dtype))
    if base not in C_TYPES[dtype]:
        raise SpecError("%s: dtype %s does not match the parameter type %r"
                        % (where, dtype, t))
    if is_pointer:
        if "count" not in arg or "role" not in arg:
            raise SpecError("%s: a pointer parameter needs count and role" % where)
        if "value" in arg:
            raise SpecError("%s: a pointer parameter has no value" % where)
        role = arg["role"]
        if role not in ROLES:
            raise SpecError("%s: unknown role %r" % (where, role))
        if const and role != "in":
            raise SpecError("%s: pointer to const with role %r" % (where, role))
        if not const and role == "in":
            raise SpecError("%s: pointer to non-const with role \"in\" "
                            "(make the parameter const)" % where)
    else:
        if "value" not in arg:
            raise SpecError("%s: a scalar parameter needs a value" % where)
        if dtype not in SCALAR_DTYPES:
            raise SpecError("%s: scalar dtype %s not allowed" % (where, dtype))
        if "count" in arg or "role" in arg:
            raise SpecError("%s: a scalar parameter has no count or role" % where)
    return is_pointer


def check_tolerance(tol, where):
    if not isinstance(tol, dict) or set(tol) - {"rtol", "atol"}:
        raise SpecError("%s: tolerance is {\"rtol\": r, \"atol\": a}" % where)
    for key, v in tol.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise SpecError("%s: tolerance %s must be a number >= 0"
                            % (where, key))


def check_arg_tolerance(arg, where):
    """A per-output tolerance: on out/inout buffers; integers take a whole atol."""
    tol = arg["tolerance"]
    check_tolerance(tol, where)
    if arg.get("role") not in ("out", "inout"):
        raise SpecError("%s: tolerance on a buffer that is not an output" % where)
    if arg["dtype"][0] in "iu":
        if "rtol" in tol:
            raise SpecError("%s: rtol on an integer output" % where)
        if "atol" in tol and tol["atol"] != int(tol["atol"]):
            raise SpecError("%s: atol of an integer output must be whole" % where)


def check_kernel(obj, source, where, want_bytes):
    unknown = {k for k in obj if not k.startswith("_")} - KERNEL_FIELDS
    if unknown:
        raise SpecError("%s: unknown field(s) %s" % (where, sorted(unknown)))
    for field in ("kernel", "args", "grid", "block", "shapes"):
        if field not in obj:
            raise SpecError("%s: missing field %r" % (where, field))
    full = obj["kernel"]
    m = re.match(r"^(\w+)(?:<\s*(.+?)\s*>)?$", full)
    if not m:
        raise SpecError("%s: bad kernel name %r" % (where, full))
    name, targ = m.group(1), m.group(2)
    where = "kernel %s" % full
    kernels = parse_kernels(source)
    if name not in kernels:
        raise SpecError("%s: no __global__ function %r in the source" % (where, name))
    tparam, params = kernels[name]
    if bool(tparam) != bool(targ):
        raise SpecError("%s: template arguments do not match the definition" % where)
    if targ and targ not in explicit_instantiations(source, name):
        raise SpecError("%s: the source does not instantiate %s" % (where, full))

    args = obj["args"]
    if len(args) != len(params):
        raise SpecError("%s: %d args for %d parameters"
                        % (where, len(args), len(params)))
    pointers = []
    for i, (arg, (ctype, pname)) in enumerate(zip(args, params)):
        aw = "%s: arg %d (%s)" % (where, i, pname)
        if arg.get("name") != pname:
            raise SpecError("%s: named %r, the parameter is %r"
                            % (aw, arg.get("name"), pname))
        if check_param(arg, ctype, tparam, targ, aw):
            pointers.append(arg)
        if "dist" in arg and arg["dist"] not in DISTS:
            raise SpecError("%s: unknown dist %r" % (aw, arg["dist"]))
        if "gen" in arg and arg["gen"].get("kind") not in GENS:
            raise SpecError("%s: unknown gen %r" % (aw, arg["gen"].get("kind")))
        if "range" in arg and arg["dtype"][0] not in "iu":
            raise SpecError("%s: range on a non-integer buffer" % aw)
        if "tolerance" in arg:
            check_arg_tolerance(arg, aw)

    for key in ("grid", "block"):
        if not 1 <= len(obj[key]) <= 3:
            raise SpecError("%s: %s needs 1 to 3 expressions" % (where, key))
    if not obj["shapes"]:
        raise SpecError("%s: no shapes" % where)

    rows = []
    for s_i, shape in enumerate(obj["shapes"]):
        sw = "%s: shape %d %s" % (where, s_i, json.dumps(shape))
        env = dict(shape)
        try:
            grid = [evaluate(e, env) for e in obj["grid"]]
            block = [evaluate(e, env) for e in obj["block"]]
            if "shared_bytes" in obj:
                evaluate(obj["shared_bytes"], env)
            if min(grid) < 1 or min(block) < 1:
                raise SpecError("empty launch grid %s block %s" % (grid, block))
            threads = 1
            for b in block:
                threads *= b
            if threads > 1024:
                raise SpecError("block %s has %d > 1024 threads" % (block, threads))
            if block[0] > 1024 or (len(block) > 1 and block[1] > 1024) or \
                    (len(block) > 2 and block[2] > 64):
                raise SpecError("block %s exceeds a per-dimension limit" % block)
            if grid[0] > 2**31 - 1 or any(g > 65535 for g in grid[1:]):
                raise SpecError("grid %s exceeds a per-dimension limit" % grid)
            traffic = 0
            for arg in args:
                if "value" in arg:
                    v = arg["value"]
                    if arg["dtype"] in ("f32", "f64") and isinstance(v, str) \
                            and is_float_literal(v):
                        continue
                    evaluate(v, env)
                    continue
                count = evaluate(arg["count"], env)
                if count < 1:
                    raise SpecError("%s has count %d" % (arg["name"], count))
                nbytes = count * DTYPE_SIZE[arg["dtype"]]
                if nbytes > MAX_BUFFER_BYTES:
                    raise SpecError("%s is %.2f GB" % (arg["name"], nbytes / 1e9))
                traffic += nbytes * (2 if arg["role"] == "inout" else 1)
                if "range" in arg:
                    lo, hi = (evaluate(e, env) for e in arg["range"])
                    if lo >= hi:
                        raise SpecError("%s has an empty range [%d, %d)"
                                        % (arg["name"], lo, hi))
                gen = arg.get("gen")
                if gen and gen["kind"] == "csr_indptr":
                    rows_ = evaluate(gen["rows"], env)
                    dmin = evaluate(gen["min_degree"], env)
                    dmax = evaluate(gen["max_degree"], env)
                    if count != rows_ + 1:
                        raise SpecError("csr_indptr %s: count %d != rows + 1"
                                        % (arg["name"], count))
                    if not 0 <= dmin <= dmax:
                        raise SpecError("csr_indptr %s: degrees [%d, %d]"
                                        % (arg["name"], dmin, dmax))
                if gen and gen["kind"] == "csr_indices":
                    ptr = [a for a in args if a["name"] == gen.get("indptr")]
                    if not ptr or ptr[0].get("gen", {}).get("kind") != \
                            "csr_indptr":
                        raise SpecError("csr_indices %s: indptr %r is not an "
                                        "argument with a csr_indptr gen"
                                        % (arg["name"], gen.get("indptr")))
                    if "range" not in arg:
                        raise SpecError("csr_indices %s: no range"
                                        % arg["name"])
                    pgen = ptr[0]["gen"]
                    rows_ = evaluate(pgen["rows"], env)
                    dmax = evaluate(pgen["max_degree"], env)
                    lo, hi = (evaluate(e, env) for e in arg["range"])
                    if count < rows_ * dmax:
                        raise SpecError("csr_indices %s: count %d < rows * "
                                        "max_degree = %d"
                                        % (arg["name"], count, rows_ * dmax))
                    if hi - lo < dmax:
                        raise SpecError("csr_indices %s: range [%d, %d) holds "
                                        "fewer than max_degree = %d values"
                                        % (arg["name"], lo, hi, dmax))
            least = traffic
            if "bytes" in obj:
                least = evaluate(obj["bytes"], env)
                if not 1 <= least <= traffic:
                    raise SpecError("bytes is %d, not in [1, %d] (every buffer "
                                    "whole)" % (least, traffic))
        except SpecError as e:
            raise SpecError("%s: %s" % (sw, e))
        rows.append((shape, grid, block, traffic, least))
    if "tolerance" in obj:
        check_tolerance(obj["tolerance"], where)
    if want_bytes:
        for shape, grid, block, traffic, least in rows:
            print("%-38s %10.1f MB %10s  grid %-14s block %-10s %s" % (
                full, traffic / 1e6,
                "" if least == traffic else "%.1f MB" % (least / 1e6),
                ",".join(map(str, grid)), ",".join(map(str, block)),
                json.dumps(shape, separators=(",", ":"))))


def check_spec(path, want_bytes):
    with open(path) as f:
        spec = json.load(f)
    cu = path[: -len(".astra.json")] + ".cu"
    with open(cu) as f:
        source = f.read()
    objs = spec["kernels"] if "kernels" in spec else [spec]
    for obj in objs:
        check_kernel(obj, source, "spec", want_bytes)


def main(argv):
    want_bytes = "--bytes" in argv
    paths = [a for a in argv if a != "--bytes"]
    failed = 0
    for path in paths:
        try:
            check_spec(path, want_bytes)
        except (SpecError, OSError, ValueError, KeyError) as e:
            print("%s: error: %s" % (path, e))
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
