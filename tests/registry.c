#include "tests/tests.h"

extern const struct test_suite suite_util, suite_parse_events, suite_mmap, suite_data,
	suite_synthetic, suite_tracing_data, suite_kernel_ring, suite_backward_ring_buffer,
	suite_snapshot, suite_output, suite_drain, suite_parse_options, suite_script_fuzz,
	suite_reader, suite_compress, suite_history, suite_symbols,
	suite_daemon_config, suite_bpf_tracking, suite_dso_hits, suite_twin_cut;
extern const struct test_suite suite_record_loop;

const struct test_suite *const test_suites[] = {
	&suite_util,
	&suite_parse_events,
	&suite_mmap,
	&suite_data,
	&suite_synthetic,
	&suite_tracing_data,
	&suite_kernel_ring,
	&suite_backward_ring_buffer,
	&suite_twin_cut,
	&suite_snapshot,
	&suite_output,
	&suite_drain,
	&suite_parse_options,
	&suite_script_fuzz,
	&suite_reader,
	&suite_compress,
	&suite_history,
	&suite_symbols,
	&suite_daemon_config,
	&suite_bpf_tracking,
	&suite_dso_hits,
	&suite_record_loop,
	NULL,
};
