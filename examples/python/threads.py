# SPDX-License-Identifier: LGPL-2.1-or-later
import rcupool

rcupool.set_num_threads(4)      # safe at any time, also after models are loaded
assert rcupool.get_num_threads() == 4
default = rcupool.reset_num_threads()  # back to the default count (rcupool_reset(m, 0)); returns it
print("default:", default, rcupool.stats())  # stats(): a frozen dataclass, every field of rcupool_stats_t
rcupool.barrier()               # free what is freeable now
rcupool.set_idle("spin")        # workers spin after a job ("yield", the default: sleep)
rcupool.set_idle("yield")
rcupool.set_warm(ms=1000, pools=8)  # widths without pins kept 1 s, 8 at most (the defaults)
with rcupool.threads(2) as block:  # this thread's extension calls run on a 2-thread pool
    assert block.pool_threads == 2   # (model.run(x) would go here)
    assert rcupool.get_num_threads() == default  # the process-wide count is unchanged
    assert rcupool.get_effective_num_threads() == 2  # this thread's width (torch's get_num_threads)
with rcupool.threads(2):           # the same width again: its pool stayed warm, a lookup
    pass
@rcupool.threads(2)                # a decorator too: every call runs in such a block
def step():
    return rcupool.get_effective_num_threads()
assert step() == 2 and rcupool.stats().pins == 0
print("trimmed", rcupool.trim())   # free the warm pools now (going quiet); returns how many
print("version", rcupool.__version__)  # "0.1.0": the loaded library's rcupool_version()
print("headers", rcupool.get_include())  # rcupool/: the 20 public headers
print("library", rcupool.get_library_dir())  # librcupool.so.0 (and librcupool_xnnpack.so.0)
