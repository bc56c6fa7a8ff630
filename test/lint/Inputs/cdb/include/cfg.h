#pragma once
#ifndef USE_FAST
#define USE_FAST 0
#endif
