// BlockSignature — BlockFixtures: the C types the fixture blocks use. Private to Fixtures/.

#ifndef BLOCKFIXTURETYPES_H
#define BLOCKFIXTURETYPES_H

#include <stdint.h>

enum BFPlain { BFPlainA, BFPlainB };
enum __attribute__((packed)) BFPacked { BFPackedA, BFPackedB };
enum BFFixed : uint8_t { BFFixedA, BFFixedB };
enum BFFixedWide : int64_t { BFFixedWideA = -1 };

struct BFOpaque;  // incomplete
struct BFPoint { double x, y; };
typedef struct { int a; float b; } BFAnonymous;
struct BFLine { struct BFPoint from, to; };
struct BFWithArrays { int values[4]; char tag[3]; };
struct BFBits { unsigned a : 3; unsigned b : 5; int c; unsigned d : 1; };
struct __attribute__((packed)) BFPackedStruct { char c; int i; short s; };
struct __attribute__((aligned(32))) BFOverAligned { int i; };
union BFUnion { int i; double d; char bytes[12]; };
struct BFNode { int value; struct BFNode *next; };
struct BFMixed { enum BFPlain kind; union BFUnion payload; };
struct BFBig { long a, b, c; };        // returned in memory on x86_64: USE_STRET
struct BFTwoDoubles { double a, b; };  // returned in registers: no USE_STRET
struct BFChar { char c; };
struct BFS3 { char c; short s; };
typedef struct BFP { double d; int i; char c; } BFP;

typedef int BFInt4[4];
typedef short BFShort2x3[2][3];
typedef int BFV4SI __attribute__((vector_size(16)));
typedef int (*BFFunctionPointer)(int, const char *);
typedef struct BFPoint (*BFPointFunction)(double);
typedef int (^BFIntBlock)(int);
typedef void (^BFVoidBlock)(void);

#endif  // BLOCKFIXTURETYPES_H
