#!/usr/bin/env bash
# Regenerates the seed corpora in Corpus/ from the fixtures, compiled by the toolchain's clang:
#   FuzzSignature      every block signature clang emits for Fixtures/BlockFixtures.def
#   FuzzTypeEncoding   the single types those signatures are made of, plus grammar samples
#   FuzzBinaryScanner  small clang-made objects: ELF64/ELF32/aarch64 objects, x86_64 and aarch64
#                      shared libraries, a fixed-address x86_64 executable, Mach-O objects
#                      (arm64, arm64e, x86_64) and an `ar` archive
#   FuzzLibraryLoad    the x86_64 and aarch64 shared libraries above, and one cut to 4 KiB
#   FuzzCompatibility  pairs of those signatures separated by a NUL byte
#   FuzzExtendedLayout byte-form and inline-form extended layouts
# Run from anywhere; needs clang (next to swift) and llvm-ar or ar.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
clang="$(dirname "$(readlink -f "$(command -v swift)")")/clang"
[ -x "$clang" ] || clang="$(command -v clang)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpus="$here/Corpus"
# Only the corpora made here (Corpus/FuzzSwiftType holds hand-written seeds).
rm -rf "$corpus"/{FuzzSignature,FuzzTypeEncoding,FuzzBinaryScanner,FuzzExtendedLayout,FuzzCompatibility}
mkdir -p "$corpus"/{FuzzSignature,FuzzTypeEncoding,FuzzBinaryScanner,FuzzExtendedLayout,FuzzCompatibility}

# Signatures: the C strings containing "@?" in the fixtures' LLVM IR.
"$clang" -fblocks -I"$root/Fixtures/include" -I"$root/Fixtures" -S -emit-llvm -o "$work/fixtures.ll" \
  "$root/Fixtures/BlockFixtures.c"
grep -o 'c"[^"]*@?[^"]*\\00"' "$work/fixtures.ll" | sed 's/^c"//; s/\\00"$//' | sort -u > "$work/signatures.txt"
n=0
while IFS= read -r signature; do
  printf '%s' "$signature" > "$corpus/FuzzSignature/fixture-$n"
  n=$((n + 1))
done < "$work/signatures.txt"

# Compatibility: pairs of fixture signatures joined by a NUL (each with the next one, and with
# itself with its offsets dropped).
mapfile -t all < "$work/signatures.txt"
for ((i = 0; i < ${#all[@]}; i++)); do
  next="${all[$(((i + 1) % ${#all[@]}))]}"
  printf '%s\0%s' "${all[$i]}" "$next" > "$corpus/FuzzCompatibility/pair-$i"
  printf '%s\0%s' "${all[$i]}" "$(printf '%s' "${all[$i]}" | tr -d '0-9')" > "$corpus/FuzzCompatibility/stripped-$i"
done

# Types: split each signature at the top level (offsets dropped), plus hand-picked grammar samples.
python3 - "$work/signatures.txt" "$corpus/FuzzTypeEncoding" <<'PY'
import sys, os
signatures = open(sys.argv[1]).read().split("\n")
out = sys.argv[2]
def read_type(s, i):
    while i < len(s) and s[i] in "rnNoORVjA^": i += 1
    if i >= len(s): return i
    c = s[i]
    if c in "{([":
        depth, quote = 0, False
        while i < len(s):
            ch = s[i]
            if ch == '"': quote = not quote
            elif not quote and ch in "{([<": depth += 1
            elif not quote and ch in "})]>":
                depth -= 1
                if depth == 0: return i + 1
            i += 1
        return i
    if c == "b":
        i += 1
        while i < len(s) and s[i].isdigit(): i += 1
        return i
    if c == "@":
        i += 1
        if s[i:i+2] == "?<":
            depth = 0
            while i < len(s):
                if s[i] == "<": depth += 1
                elif s[i] == ">":
                    depth -= 1
                    if depth == 0: return i + 1
                i += 1
            return i
        if s[i:i+1] == "?": return i + 1
        if s[i:i+1] == '"':
            return s.index('"', i + 1) + 1
        return i
    return i + 1
types = set()
for s in signatures:
    i = 0
    while i < len(s):
        j = read_type(s, i)
        if j <= i: break
        types.add(s[i:j])
        i = j
        while i < len(s) and (s[i].isdigit() or s[i] in "+-"): i += 1
types |= {
    "{CGPoint=dd}", "(U=if)", "[4^{S=i[2c]}]", "{S=b1b3b28}", "{S=b0i3b3i5}", "r^{S}", "^^^v",
    '{S="a"i"b"@"NSString""c"[3c]}', '@"NSObject"', "@?<v@?i>", "@?<i@?^{P=dd}@?<v@?>>",
    "jd", "Ai", "AQ", "{X=(Y=c[8s])q}", "[0i]", "Vv", "R@", "{?=D}", "T", "t", " ", "?", "%", ":",
    "#", "*", "{Z=}", "(E)", "[18446744073709551615c]",
}
for n, t in enumerate(sorted(types)):
    open(os.path.join(out, "type-%d" % n), "w").write(t)
PY

# Binaries: one source with global, stack, copy/dispose (__block) and struct-return blocks.
cat > "$work/b.c" <<'C'
struct P { double x; int y; char c; };
void take(void (^)(void));
int (^global_int)(int, long) = ^(int a, long b) { return a + (int)b; };
struct P (^global_struct)(const char *, struct P *) = ^(const char *s, struct P *p) { return *p; };
void f(int k) {
  __block int counter = k;
  take(^{ counter++; });
  take(^{ (void)k; });
}
C
for target in x86_64-linux-gnu i386-linux-gnu aarch64-linux-gnu arm64-apple-macos11 arm64e-apple-macos11 x86_64-apple-macos11; do
  "$clang" -target "$target" -fblocks -O1 -c -o "$work/$target.o" "$work/b.c"
  cp "$work/$target.o" "$corpus/FuzzBinaryScanner/$target.o"
done
"$clang" -fblocks -O1 -shared -fPIC -nostdlib -o "$work/b.so" "$work/b.c" -Wl,--unresolved-symbols=ignore-all
cp "$work/b.so" "$corpus/FuzzBinaryScanner/x86_64-linux-gnu.so"
# Linked code for the construction-site reader: AArch64 (adrp/add/stp) and a fixed-address
# x86_64 executable (immediates), both linked by lld.
"$clang" -target aarch64-linux-gnu -fuse-ld=lld -fblocks -O1 -shared -fPIC -nostdlib \
  -o "$corpus/FuzzBinaryScanner/aarch64-linux-gnu.so" "$work/b.c"
"$clang" -fuse-ld=lld -fblocks -O1 -fno-pic -no-pie -nostdlib -Wl,--unresolved-symbols=ignore-all -Wl,-e,0 \
  -o "$corpus/FuzzBinaryScanner/x86_64-linux-gnu-fixed" "$work/b.c"
strip_tool="$(dirname "$clang")/llvm-strip"; [ -x "$strip_tool" ] || strip_tool="$(command -v strip)"
"$strip_tool" --strip-all -o "$corpus/FuzzBinaryScanner/x86_64-linux-gnu-stripped.so" "$work/b.so"
ar_tool="$(dirname "$clang")/llvm-ar"; [ -x "$ar_tool" ] || ar_tool="$(command -v ar)"
(cd "$work" && "$ar_tool" rc "$corpus/FuzzBinaryScanner/archive.a" x86_64-linux-gnu.o)
# The loading path: the same shared libraries, whole and cut to their first 4 KiB.
rm -rf "$corpus/FuzzLibraryLoad" && mkdir -p "$corpus/FuzzLibraryLoad"
for library in x86_64-linux-gnu.so x86_64-linux-gnu-stripped.so aarch64-linux-gnu.so; do
  cp "$corpus/FuzzBinaryScanner/$library" "$corpus/FuzzLibraryLoad/$library"
done
head -c 4096 "$corpus/FuzzBinaryScanner/x86_64-linux-gnu.so" > "$corpus/FuzzLibraryLoad/x86_64-linux-gnu-truncated-4k"

# Extended layouts: byte strings ending in 0x00, and 8-byte little-endian inline words.
printf '\x00' > "$corpus/FuzzExtendedLayout/empty"
printf '\x30\x00' > "$corpus/FuzzExtendedLayout/strong"
printf '\x12\x31\x40\x50\x63\x00' > "$corpus/FuzzExtendedLayout/mixed"
printf '\x1f\x2f\x3f\x4f\x5f\x6f\x00' > "$corpus/FuzzExtendedLayout/full-counts"
printf '\x21\x01\x00\x00\x00\x00\x00\x00' > "$corpus/FuzzExtendedLayout/inline-0x121"
printf '\x03\x02\x01\x00\x00\x00\x00\x00' > "$corpus/FuzzExtendedLayout/inline-0x10203"
echo "corpus: $(find "$corpus" -type f | wc -l) files in $corpus"
