// The program of the layer link checks (tests/CMakeLists.txt): it calls nothing. Every object
// file of the layers it is linked with is linked whole, so the link itself is the check.
int main() { return 0; }
