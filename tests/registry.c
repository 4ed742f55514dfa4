/* The registry of unit and ABI suites, in the order `perf test list` shows
 * them, and how a suite runs its cases. */
#include "tests/tests.h"

extern const struct test_suite suite_util_parse_events, suite_util_mmap, suite_perfdata_data,
	suite_record_synthetic, suite_util_tp, suite_lib_util, suite_kernel_ring,
	suite_backward_ring_buffer, suite_twin_cut, suite_util_cpumap,
	suite_record_switch_output, suite_record_threads, suite_flight_trigger, suite_flight_ring_copy,
	suite_flight_merge, suite_flight_tracking, suite_flight_prelude, suite_flight_capture,
	suite_flight_stage_pipe, suite_flight_record_index, suite_record_drain,
	suite_lib_parse_options, suite_script_comm_map, suite_script_script,
	suite_perfdata_reader, suite_perfdata_compress, suite_flight_history, suite_flight_dump,
	suite_perfdata_header, suite_perfdata_header_check, suite_script_symbols, suite_script_machine,
	suite_script_unwind, suite_script_pprof,
	suite_daemon_daemon_config, suite_daemon_daemon_status, suite_util_bpf_event, suite_buildid_dso_hits,
	suite_buildid_mapped_file, suite_buildid_build_id_cache, suite_lib_memcpy_stream,
	suite_record_loop, suite_record_post_dump, suite_util_hotplug, suite_lib_escape,
	suite_lib_json, suite_lib_spawn, suite_bpf_loader, suite_bpf_trigger_cond, suite_util_event,
	suite_util_bpf_sideband, suite_bpf_off_cpu;

/* The kernel's rings (kernel-ring, backward-ring-buffer, twin-cut) keep
 * the places they have had; script/script checks for leaks of every
 * suite before it. */
const struct test_suite *const test_suites[] = {
	&suite_util_parse_events,
	&suite_util_mmap,
	&suite_util_event,
	&suite_perfdata_data,
	&suite_record_synthetic,
	&suite_util_tp,
	&suite_lib_util,
	&suite_lib_escape,
	&suite_lib_json,
	&suite_lib_spawn,
	&suite_kernel_ring,
	&suite_backward_ring_buffer,
	&suite_twin_cut,
	&suite_util_cpumap,
	&suite_util_hotplug,
	&suite_record_switch_output,
	&suite_record_threads,
	&suite_flight_trigger,
	&suite_flight_ring_copy,
	&suite_flight_merge,
	&suite_flight_tracking,
	&suite_flight_prelude,
	&suite_flight_capture,
	&suite_flight_stage_pipe,
	&suite_flight_record_index,
	&suite_record_drain,
	&suite_record_loop,
	&suite_record_post_dump,
	&suite_lib_parse_options,
	&suite_script_comm_map,
	&suite_script_script,
	&suite_perfdata_reader,
	&suite_perfdata_compress,
	&suite_flight_history,
	&suite_flight_dump,
	&suite_perfdata_header,
	&suite_perfdata_header_check,
	&suite_script_symbols,
	&suite_script_machine,
	&suite_script_unwind,
	&suite_script_pprof,
	&suite_daemon_daemon_config,
	&suite_daemon_daemon_status,
	&suite_util_bpf_event,
	&suite_bpf_loader,
	&suite_bpf_trigger_cond,
	&suite_util_bpf_sideband,
	&suite_bpf_off_cpu,
	&suite_buildid_dso_hits,
	&suite_buildid_mapped_file,
	&suite_buildid_build_id_cache,
	&suite_lib_memcpy_stream,
	NULL,
};

int test__run_cases(struct test_ctx *ctx, const test_case_fn *cases, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		int ret = cases[i](ctx);

		if (ret)
			return ret;
	}
	return TEST_OK;
}
