// atrex-template: nosign
// atrex-summary: a direction whose knob has no sign (search-directions.test)
// atrex-param: X 1 2
// atrex-default: X=1
// atrex-direction: wider-loads X
void rms_norm(float *out, const float *x, int n) {}
