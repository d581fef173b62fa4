// The baseline tier's lane header: the one for the compiler's default target, else the generic fallback.
#pragma once

// MSVC defines no __SSE2__, though every x86-64 CPU has SSE2.
#if defined(__SSE2__) || defined(_M_X64)
#include "lanes/lanes_sse2.hpp"
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include "lanes/lanes_neon.hpp"
#else
#include "lanes/lanes_generic.hpp"
#endif
