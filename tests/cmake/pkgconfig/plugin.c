/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plugin (see plugin.h). PLUGIN_NAME names it. */
#include "plugin.h"

#include "tiny_model.h"

static tiny_t model;

static const void *p_manager(void) { return rcupool_default(); }
static int p_reset(size_t n) { return rcupool_reset(rcupool_default(), n); }
static int p_load(void) {
  tiny_fill(&model);
  return tiny_load(&model, rcupool_default());
}
static const void *p_method_pool(void) {
  return rcupool_pin_pthreadpool(rcupool_xnn_runtime_get_pin(model.rt));
}
static int p_run(void) { return tiny_run(&model); }
static void p_unload(void) { tiny_unload(&model); }
static size_t p_pins(void) {
  rcupool_stats_t s = {0};
  return rcupool_get_stats(rcupool_default(), &s) == 0 ? s.pins : (size_t)-1;
}
static size_t p_pools_alive(void) {
  rcupool_stats_t s = {0};
  return rcupool_get_stats(rcupool_default(), &s) == 0 ? s.pools_alive : (size_t)-1;
}
/* A barrier, then the warm pools freed too (they are kept otherwise). */
static int p_barrier(void) {
  return rcupool_barrier(rcupool_default()) == 0 &&
                 rcupool_trim(rcupool_default()) >= 0
             ? 0
             : -1;
}

const plugin_api_t *plugin_api(void) {
  static const plugin_api_t api = {
      PLUGIN_NAME, p_manager, p_reset, p_load, p_method_pool, p_run,
      p_unload, p_pins, p_pools_alive, p_barrier,
  };
  return &api;
}
