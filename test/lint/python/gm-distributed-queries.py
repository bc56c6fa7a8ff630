# torch.distributed's queries and group setup are glue (they compute
# nothing and return no tensor): a custom_kernel that only asks for the
# world size and allocates launches nothing and delegates nothing. Its
# collectives stay delegation.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# RUN: not atrex-lint --no-snippets --entry=gather %s 2>&1 | FileCheck %s --check-prefix=COLLECTIVE
import torch
import torch.distributed as dist
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    if not dist.is_initialized():
        return [data]
    world = dist.get_world_size()
    rank = dist.get_rank(group=dist.new_group(list(range(world))))
    dist.barrier()
    return [torch.empty_like(data) for _ in range(world * 2 + rank)]


def gather(data: torch.Tensor):
    parts = [torch.empty_like(data) for _ in range(dist.get_world_size())]
    # COLLECTIVE: :[[@LINE+1]]:5: warning: call to 'torch::distributed::all_gather' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    dist.all_gather(parts, data)
    return parts
# CHECK-NOT: torch::distributed
# CHECK-NOT: at::operator
# CHECK: verdict: no-kernel
# COLLECTIVE: verdict: fallback (fallback: PyTorch/ATen (torch::distributed::all_gather);
