#!/usr/bin/env python3
"""Generate the benchmark corpus: real signatures written by clang, with clang's own sizes.

Random C types (nested structs, unions, arrays, bitfields, pointers, blocks, every scalar) are
declared as global blocks in one C file and as Objective-C methods in one .m file. Both files are
compiled with the toolchain clang (`clang` on PATH) to LLVM IR; the signature strings are read
from the block descriptors and the method lists, and, for every signature, clang's `sizeof` and
`_Alignof` of the return type and of each argument are read from `truth_N` constant arrays
emitted next to them.

Output (tab-separated, one signature per line, fixed seed so the file is reproducible):

    id  kind  signature  truth  declaration

  kind         block | method
  signature    the bytes clang wrote (never contains a tab or a newline)
  truth        `size:align` for the return value then each argument (the block, or self and
               _cmd, included), space separated; `0:0` for a void return; the frame length is
               the number clang wrote after the return type
  declaration  the C / Objective-C declaration, for reading failures

Usage: generate.py [--blocks N] [--methods N] [--seed S] [--out signatures.tsv]
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

INTEGRAL = [
    "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int",
    "long", "unsigned long", "long long", "unsigned long long", "_Bool",
]
FLOATING = ["float", "double", "long double"]
EXOTIC = ["__int128", "unsigned __int128", "_Float16", "__float128", "enum E", "enum E8"]
POINTERS = [
    "char *", "const char *", "void *", "int *", "const int *", "double **", "int (*)(int)",
    "void (^)(void)", "int (^)(int, double)", "struct Opaque *", "unsigned char *",
]
COMPLEX = ["_Complex float", "_Complex double", "_Complex long double"]
ATOMIC = ["_Atomic(int)", "_Atomic(long)", "_Atomic(char)", "_Atomic(double)", "_Atomic(short)"]
BITFIELD_TYPES = ["int", "unsigned int", "int", "unsigned int", "char", "unsigned char", "short",
                  "long long", "unsigned long long", "_Bool"]
BITFIELD_WIDTH = {"int": 32, "unsigned int": 32, "char": 8, "unsigned char": 8, "short": 16,
                  "long long": 64, "unsigned long long": 64, "_Bool": 1}
# Parameter-only types clang cannot encode: they leave an empty string in the signature.
UNENCODABLE = ["v4si", "v2d", "v8s", "_BitInt(37)", "_BitInt(7)", "unsigned _BitInt(100)"]
OBJC_ONLY = ["id", "Class", "SEL", "id *", "Class *", "SEL *", "void (^)(id)", "Root *"]
OBJC_QUALIFIERS = ["in", "out", "inout", "bycopy", "byref"]

PRELUDE_C = """\
enum E { E0, E1, E2 };
enum E8 : unsigned char { E8A, E8B };
typedef int v4si __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));
typedef short v8s __attribute__((vector_size(16)));
struct Opaque;
"""

PRELUDE_OBJC = """\
__attribute__((objc_root_class)) @interface Root { Class isa; } @end
@implementation Root @end
""" + PRELUDE_C


class Generator:
    def __init__(self, rng, objc):
        self.rng = rng
        self.objc = objc
        self.decls = []        # struct/union definitions and typedefs, in order
        self.aggregates = []   # names of complete aggregates, usable as `struct X`/`union X`
        self.counter = 0
        self.typedefs = {}     # typedef name -> the type it names

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def scalar(self):
        r = self.rng.random()
        if r < 0.35:
            return self.rng.choice(INTEGRAL)
        if r < 0.50:
            return self.rng.choice(FLOATING)
        if r < 0.60:
            return self.rng.choice(EXOTIC)
        if r < 0.85:
            return self.rng.choice(POINTERS)
        if r < 0.93:
            return self.rng.choice(COMPLEX)
        return self.rng.choice(ATOMIC)

    def aggregate(self, depth):
        """Defines a new struct or union and returns its type name."""
        is_union = self.rng.random() < 0.2
        keyword = "union" if is_union else "struct"
        name = self.fresh("U" if is_union else "S")
        fields = []
        count = self.rng.randint(1, 6)
        for index in range(count):
            r = self.rng.random()
            fname = f"f{index}"
            if r < 0.15 and not is_union:
                base = self.rng.choice(BITFIELD_TYPES)
                width = self.rng.randint(0, BITFIELD_WIDTH[base])
                if width == 0:
                    fields.append(f"{base} : 0;")
                    fields.append(f"{base} {fname};")  # a named member after the zero-width one
                else:
                    fields.append(f"{base} {fname} : {width};")
            elif r < 0.30 and depth < 3:
                inner = self.aggregate(depth + 1)
                pointer = self.rng.random()
                if pointer < 0.15:
                    fields.append(f"{inner} *{fname};")
                elif pointer < 0.22:
                    fields.append(f"{inner} **{fname};")
                else:
                    fields.append(f"{inner} {fname};")
            elif r < 0.42:
                element = self.field_type(depth)
                n = self.rng.choice([0, 1, 2, 3, 4, 5, 8]) if index == count - 1 else self.rng.randint(1, 5)
                fields.append(self.declare(element, f"{fname}[{n}]"))
            else:
                fields.append(self.declare(self.field_type(depth), fname))
        self.decls.append(f"{keyword} {name} {{ {' '.join(fields)} }};")
        full = f"{keyword} {name}"
        self.aggregates.append(full)
        return full

    def field_type(self, depth):
        if self.objc and self.rng.random() < 0.1:
            return self.rng.choice(["id", "Class", "SEL"])
        if depth < 3 and self.rng.random() < 0.1:
            return self.aggregate(depth + 1)
        return self.scalar()

    @staticmethod
    def declare(type_name, declarator):
        """`T name`, handling function pointer and block pointer declarators."""
        for marker in ("(*)", "(^)"):
            if marker in type_name:
                return type_name.replace(marker, f"({marker[1]}{declarator})", 1) + ";"
        return f"{type_name} {declarator};"

    def param_type(self):
        r = self.rng.random()
        if r < 0.45:
            return self.scalar()
        if r < 0.70:
            return self.aggregate(1)
        if r < 0.78 and self.aggregates:
            agg = self.rng.choice(self.aggregates)
            return agg + (" *" if self.rng.random() < 0.7 else " **")
        if r < 0.86:
            # An array parameter: encoded as the array, passed as a pointer.
            element = self.rng.choice(INTEGRAL + FLOATING + ["char *"])
            name = self.fresh("A")
            length = self.rng.randint(1, 8)
            self.typedefs[name] = f"{element}[{length}]"
            self.decls.append(f"typedef {element} {name}[{length}];")
            return name
        if r < 0.92 and not self.objc:
            return self.rng.choice(UNENCODABLE)
        if self.objc:
            return self.rng.choice(OBJC_ONLY)
        return self.scalar()

    def return_type(self):
        r = self.rng.random()
        if r < 0.25:
            return "void"
        if r < 0.35:
            return self.aggregate(1)
        if r < 0.38 and not self.objc:
            return self.rng.choice(["v4si", "_BitInt(37)"])
        if self.objc and r < 0.45:
            return self.rng.choice(["id", "Class", "SEL"])
        return self.scalar()


def typedef_for(gen, type_name):
    """A typedef so every type can be written as one identifier (function pointers, blocks)."""
    name = gen.fresh("T")
    gen.typedefs[name] = type_name
    gen.decls.append("typedef " + Generator.declare(type_name, name))
    return name


def truth_entry(type_name):
    if type_name == "void":
        return "0, 0"
    return f"sizeof({type_name}), _Alignof({type_name})"


def make_blocks(rng, count):
    gen = Generator(rng, objc=False)
    body = []
    described = []
    for n in range(count):
        ret = typedef_for(gen, gen.return_type())
        params = [typedef_for(gen, gen.param_type()) for _ in range(rng.randint(0, 6))]
        void_ret = ret_is_void(gen, ret)
        ret_value = "{ return; }" if void_ret else f"{{ static {ret} r; return r; }}"
        plist = ", ".join(f"{p} a{i}" for i, p in enumerate(params)) or "void"
        tlist = ", ".join(params) or "void"
        body.append(f"{ret} (^blk_{n})({tlist}) = ^{ret}({plist}) {ret_value};")
        entries = [truth_entry("void" if void_ret else ret), "sizeof(void *), _Alignof(void *)"] + [truth_entry(p) for p in params]
        body.append(f"const unsigned long truth_{n}[] = {{ {', '.join(entries)} }};")
        described.append((n, ret, params))
    source = PRELUDE_C + "\n".join(gen.decls) + "\n" + "\n".join(body) + "\n"
    return source, described, gen.typedefs


def make_methods(rng, count):
    gen = Generator(rng, objc=True)
    interface = []
    implementation = []
    truths = []
    described = []
    for n in range(count):
        ret = typedef_for(gen, gen.return_type())
        oneway = ret_is_void(gen, ret) and rng.random() < 0.3
        params = [typedef_for(gen, gen.param_type()) for _ in range(rng.randint(0, 6))]
        qualifiers = []
        for p in params:
            spelled = gen.typedefs.get(p, p)
            pointerish = "*" in spelled or "^" in spelled or spelled in ("id", "Class")
            qualifiers.append(rng.choice(OBJC_QUALIFIERS) + " " if pointerish and rng.random() < 0.4 else "")
        if params:
            pieces = [f"m{n}:({qualifiers[0]}{params[0]})a0"]
            pieces += [f"p{i}:({qualifiers[i]}{p})a{i}" for i, p in enumerate(params) if i > 0]
            selector = " ".join(pieces)
        else:
            selector = f"m{n}"
        prefix = "oneway " if oneway else ""
        head = f"- ({prefix}{ret}){selector}"
        interface.append(head + ";")
        ret_value = "{ return; }" if oneway or ret_is_void(gen, ret) else f"{{ static {ret} r; return r; }}"
        implementation.append(f"{head} {ret_value}")
        entries = [truth_entry("void" if ret_is_void(gen, ret) else ret),
                   "sizeof(id), _Alignof(id)", "sizeof(SEL), _Alignof(SEL)"]
        entries += [truth_entry(p) for p in params]
        truths.append(f"const unsigned long truth_{n}[] = {{ {', '.join(entries)} }};")
        described.append((n, ret, params))
    source = (PRELUDE_OBJC + "\n".join(gen.decls) + "\n@interface K : Root\n" + "\n".join(interface)
              + "\n@end\n@implementation K\n" + "\n".join(implementation) + "\n@end\n" + "\n".join(truths) + "\n")
    return source, described, gen.typedefs


def ret_is_void(gen, name):
    return gen.typedefs.get(name) == "void"


STRING_RE = re.compile(r'^@(\S+) = (?:private|internal) unnamed_addr constant \[\d+ x i8\] c"(.*)", align 1$')
TRUTH_RE = re.compile(r'^@truth_(\d+) = .*constant \[\d+ x i64\] \[(.*)\]')
DESCRIPTOR_RE = re.compile(r'^@(__block_descriptor_tmp[.\d]*) = internal constant \{[^}]*\} \{ i64 0, i64 \d+, ptr @(\S+), ptr null \}')
LITERAL_RE = re.compile(r'^@__block_literal_global[.\d]* = internal constant .* ptr @blk_(\d+)_block_invoke[_\d]*, ptr @(__block_descriptor_tmp[.\d]*) \}')
METHOD_RE = re.compile(r'\{ ptr @_i_K__m(\d+)(?:_\S*)?, ptr @"[^"]*", ptr @(\S+) \}')


def unescape(text):
    data = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "\\":
            data.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            data.append(ord(text[i]))
            i += 1
    if data.endswith(b"\x00"):
        data = data[:-1]
    return data.decode("utf-8")


def compile_ir(clang, source, suffix, flags, workdir):
    path = os.path.join(workdir, "corpus" + suffix)
    with open(path, "w") as f:
        f.write(source)
    ir = subprocess.run([clang, *flags, "-S", "-emit-llvm", "-o", "-", path],
                        check=True, capture_output=True, text=True).stdout
    return ir


def parse_truths(ir):
    truths = {}
    for line in ir.splitlines():
        m = TRUTH_RE.match(line)
        if m:
            values = [int(v.split()[1]) for v in m.group(2).split(", ")]
            truths[int(m.group(1))] = " ".join(f"{values[i]}:{values[i + 1]}" for i in range(0, len(values), 2))
    return truths


def extract_blocks(ir):
    strings, descriptors, result = {}, {}, {}
    for line in ir.splitlines():
        if m := STRING_RE.match(line):
            strings[m.group(1)] = unescape(m.group(2))
        elif m := DESCRIPTOR_RE.match(line):
            descriptors[m.group(1)] = m.group(2)
        elif m := LITERAL_RE.match(line):
            result[int(m.group(1))] = m.group(2)
    return {n: strings[descriptors[d]] for n, d in result.items()}


def extract_methods(ir):
    strings, result = {}, {}
    for line in ir.splitlines():
        if m := STRING_RE.match(line):
            strings[m.group(1)] = unescape(m.group(2))
    for m in METHOD_RE.finditer(ir):
        result[int(m.group(1))] = strings[m.group(2)]
    return result


def declaration(typedefs, ret, params, kind):
    def spell(t):
        while t in typedefs:
            t = typedefs[t]
        return t
    return f"{spell(ret)} ({'^' if kind == 'block' else '-'})({' | '.join(spell(p) for p in params)})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=3000)
    parser.add_argument("--methods", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=20261120)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "signatures.tsv"))
    args = parser.parse_args()
    clang = shutil.which("clang")
    if clang is None:
        sys.exit("generate.py: clang not found on PATH")
    rng = random.Random(args.seed)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        source, described, typedefs = make_blocks(rng, args.blocks)
        ir = compile_ir(clang, source, ".c", ["-fblocks", "-target", "x86_64-unknown-linux-gnu", "-w"], workdir)
        signatures, truths = extract_blocks(ir), parse_truths(ir)
        for n, ret, params in described:
            rows.append((f"b{n}", "block", signatures[n], truths[n], declaration(typedefs, ret, params, "block")))
        source, described, typedefs = make_methods(rng, args.methods)
        ir = compile_ir(clang, source, ".m", ["-x", "objective-c", "-fobjc-runtime=gnustep-2.0", "-fblocks",
                                              "-target", "x86_64-unknown-linux-gnu", "-w"], workdir)
        signatures, truths = extract_methods(ir), parse_truths(ir)
        for n, ret, params in described:
            rows.append((f"m{n}", "method", signatures[n], truths[n], declaration(typedefs, ret, params, "method")))
    version = subprocess.run([clang, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    with open(args.out, "w") as f:
        f.write(f"# generated by Benchmarks/Corpus/generate.py --seed {args.seed} with {version}\n")
        f.write("# id\tkind\tsignature\ttruth(size:align: return, then each argument)\tdeclaration\n")
        for row in rows:
            assert all("\t" not in c and "\n" not in c for c in row), row
            f.write("\t".join(row) + "\n")
    print(f"wrote {len(rows)} signatures to {args.out}")


if __name__ == "__main__":
    main()
