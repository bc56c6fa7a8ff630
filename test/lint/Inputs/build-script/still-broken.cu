// Its script's flags do not make it compile: the parse without them is kept.
int main() { return undeclared_thing; }
