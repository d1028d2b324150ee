int overhead_add(int a, int b) { return a + b + 3; }
