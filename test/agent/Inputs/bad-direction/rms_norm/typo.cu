// atrex-template: typo
// atrex-summary: a template with a misspelt direction (search-directions.test)
// atrex-param: X 1 2
// atrex-default: X=1
// atrex-direction: wider-load X+
void rms_norm(float *out, const float *x, int n) {}
