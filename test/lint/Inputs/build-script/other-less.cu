// No build script compiles this file (the Makefile's RATE_DEFINED is for
// other.cu): it stays unknown, naming the error.
int main() { return rate; }
