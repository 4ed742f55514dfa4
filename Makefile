# perf: a from-scratch perf record with a flight-recorder mode.
#   make            ./perf (objects in build/)
#   make san        build-san/perf with AddressSanitizer + UBSan
#   make check      both builds, the layers' include check, then tests/run (the whole suite)
#   make demo       record a workload and read it back with the stock perf
#   make doc        man pages from Documentation/*.txt
#   make bench      side-by-side benchmarks against the stock perf
#   make install    PREFIX=/usr/local DESTDIR=: the binary, man pages, systemd unit

PKGS    := libtraceevent libtracefs libelf libzstd libbpf libprotobuf-c zlib
CC      ?= cc
O       ?= build
OPTFLAGS ?= -O2 -g
CFLAGS  := $(OPTFLAGS) $(EXTRA_CFLAGS) -std=gnu11 -Wall -Wextra -Werror -I. -D_GNU_SOURCE \
           $(shell pkg-config --cflags $(PKGS))
# -liberty: cplus_demangle, C++ names as the stock perf demangles them;
# -ldw: libdw's unwinder and DWARF reader, for --call-graph dwarf stacks
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -ldw -liberty -pthread
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

# pprof's profile.proto, as Debian's golang-github-google-pprof-dev ships
# it, compiled by protoc-c at build time: perf data convert --to-pprof
# encodes with protobuf-c (<pprof/profile.pb-c.h>), nothing in the tree
# is generated code
PROFILE_PROTO ?= /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
PROTO_OBJS := $(O)/proto/pprof/profile.pb-c.o
CFLAGS += -I$(O)/proto

# the layers, top to bottom (tests/check-layers keeps includes flowing down)
LAYERS := record script daemon flight perfdata buildid bpf util lib
LIB_SRCS := $(sort $(filter-out %.bpf.c,$(foreach d,$(LAYERS),$(wildcard $(d)/*.c))))
TEST_SRCS := $(sort $(filter-out tests/attr-shim.c,$(wildcard tests/*.c $(foreach d,$(LAYERS),tests/$(d)/*.c))))
SRCS := perf.c builtin-record.c builtin-test.c builtin-script.c builtin-daemon.c builtin-data.c \
        $(LIB_SRCS) $(TEST_SRCS)
OBJS := $(SRCS:%.c=$(O)/%.o) $(PROTO_OBJS)

all: perf $(O)/attr-shim.so $(O)/bpf-load

perf: $(O)/perf
	ln -sf $(O)/perf perf

$(O)/perf: $(OBJS)
	$(CC) $(CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

-include $(OBJS:.o=.d)

$(O)/proto/pprof/profile.pb-c.h: $(PROFILE_PROTO)
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(O)/proto/pprof --proto_path=$(dir $<) $<

$(O)/proto/pprof/profile.pb-c.c: $(O)/proto/pprof/profile.pb-c.h
	@:

$(O)/proto/pprof/profile.pb-c.o: $(O)/proto/pprof/profile.pb-c.c
	$(CC) $(CFLAGS) -c -o $@ $<

# the converter and its test include the generated header; -MMD learns
# that only after a build
$(O)/script/pprof.o $(O)/tests/script/pprof.o: $(O)/proto/pprof/profile.pb-c.h

# BPF programs (bpf/*.bpf.c): compiled once, CO-RE, against a vmlinux.h made
# from the build machine's BTF; libbpf relocates them to the running
# kernel's BTF when they load. Each becomes a skeleton header,
# $(O)/bpf/NAME.skel.h, that embeds the object in perf: nothing to install.
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(O)/bpf/%.skel.h)
BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/')
CFLAGS += -I$(O)/bpf

$(O)/bpf/vmlinux.h:
	@mkdir -p $(dir $@)
	@test -r $(BTF) || { echo "$(BTF): no kernel BTF to build the BPF programs against (BTF=FILE)" >&2; exit 1; }
	bpftool btf dump file $(BTF) format c > $@.tmp && mv $@.tmp $@

$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(O)/bpf/vmlinux.h
	clang -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I. -I$(O)/bpf -Wall -Werror \
		-MMD -MP -c -o $@ $<

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	bpftool gen skeleton $< name $(subst -,_,$*) > $@.tmp && mv $@.tmp $@

-include $(BPF_SRCS:bpf/%.bpf.c=$(O)/bpf/%.bpf.d)
.SECONDARY: $(BPF_SRCS:bpf/%.bpf.c=$(O)/bpf/%.bpf.o)

# the loaders include their skeletons; -MMD learns that only after a build
$(filter $(O)/bpf/%.o,$(OBJS)): $(BPF_SKELS)

# LD_PRELOAD shim giving this perf the stock's PERF_TEST_ATTR hook, for
# tests/shell/record_attr.sh; a shared object, never linked into perf
$(O)/attr-shim.so: tests/attr-shim.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -MMD -MP -o $@ $< -ldl

-include $(O)/attr-shim.d

# a BPF program for tests/shell/record_bpf.sh (libbpf, no clang)
$(O)/bpf-load: tests/bpf-load/bpf-load.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(LDLIBS)

-include $(O)/bpf-load.d

san:
	$(MAKE) O=build-san OPTFLAGS="-O1 -g $(SAN_FLAGS)" build-san/perf build-san/dump-pipeline \
		build-san/history-dump build-san/attr-shim.so build-san/bpf-load

CHECK_DEPS := perf $(O)/dump-pipeline $(O)/history-dump $(O)/attr-shim.so $(O)/bpf-load san

check: $(CHECK_DEPS)
	tests/check-layers
	tests/run

# make check, then the normal build's suite again with every CPU busy
# (stress-ng): what CI runs; the last line adds up all three runs
check-busy: $(CHECK_DEPS)
	tests/check-layers
	tests/run --busy

DOCS := $(wildcard Documentation/perf*.txt)
doc: $(DOCS:.txt=.1)

Documentation/%.1: Documentation/%.txt
	asciidoctor -b manpage -d manpage -a mansource=perf -a manmanual='perf Manual' -o $@ $<

demo: perf
	tests/demo

# installed as perf: what it does not implement runs the distribution's
# perf (lib/exec-cmd.c)
PREFIX ?= /usr/local
install: perf doc
	install -d -m 755 $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/lib/systemd/system
	install -m 755 $(O)/perf $(DESTDIR)$(PREFIX)/bin/perf
	install -m 644 $(DOCS:.txt=.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	sed 's|/usr/local/bin/perf|$(PREFIX)/bin/perf|g' contrib/perf-flightrec.service > \
		$(DESTDIR)$(PREFIX)/lib/systemd/system/perf-flightrec.service
	chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/system/perf-flightrec.service

# the dump pipeline alone, on synthetic rings (bench/dump-pipeline.c)
$(O)/dump-pipeline: $(O)/bench/dump-pipeline.o $(LIB_SRCS:%.c=$(O)/%.o) $(PROTO_OBJS)
	$(CC) $(CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(O)/bench/dump-pipeline.d

# the dump of a full --history, filled in memory (bench/history-dump.c)
$(O)/history-dump: $(O)/bench/history-dump.o $(LIB_SRCS:%.c=$(O)/%.o) $(PROTO_OBJS)
	$(CC) $(CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(O)/bench/history-dump.d

# every scenario against the stock perf: bench/results and the table in
# bench/README.md
bench: perf $(O)/dump-pipeline $(O)/history-dump
	bench/run

clean:
	rm -rf build build-san perf Documentation/*.1

.PHONY: all perf san check check-busy doc demo bench clean install
