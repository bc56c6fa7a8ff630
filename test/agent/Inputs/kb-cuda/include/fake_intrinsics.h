// kb.test: a stand-in CUDA header. License text that is no declaration's.

#define __FAKE_DECL__ static __device__ __inline__
#define __DEF_IF_HOST ;

/**
 * \ingroup FAKE
 * \brief Sums \p v across the lanes of a warp (rowsum helper).
 * \internal
 * \req HIDDEN-REQUIREMENT
 * \endinternal
 */
__FAKE_DECL__ float __fake_warp_rowsum(unsigned mask, float v) __DEF_IF_HOST
__FAKE_DECL__ double __fake_warp_rowsum(unsigned mask, double v) __DEF_IF_HOST

/** \brief A function with a body. */
__FAKE_DECL__ int __fake_with_body(int x)
{
  if (x) { return 1; }
  return 0;
}

#define FAKE_MACRO(x) (x)
