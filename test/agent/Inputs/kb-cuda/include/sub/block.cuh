// kb.test: a stand-in CCCL header (a namespace opened by a macro).
FAKE_NAMESPACE_BEGIN

//! Block-wide rowsum.
template <typename T, int THREADS>
class FakeBlockReduce
{
  struct Hidden { int x; };
  _FAKE_DEVICE void private_helper(int);

public:
  //! Computes the block-wide rowsum (valid in thread 0).
  _FAKE_DEVICE T Sum(T input)
  {
    return input;
  }

  _FAKE_DEVICE void internal_step(T);
};

FAKE_NAMESPACE_END
