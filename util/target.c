/* What is recorded: the target options settled as perf settles them, and
 * the workload, forked and held until the recording starts. */
#include "util/target.h"

#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int workload__prepare(struct workload *w, const char **argv)
{
	int go[2], errp[2], err;
	sigset_t none;

	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		close(go[0]); close(go[1]); close(errp[0]); close(errp[1]);
		return err;
	}
	if (w->pid == 0) {
		char c;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		close(errp[0]);
		/* the parent closing go without a byte means: give up */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		err = errno;
		if (write(errp[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	w->go_fd = go[1];
	w->err_fd = errp[0];
	return 0;
}

int workload__start(struct workload *w)
{
	int child_err = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return -errno;
	close(w->go_fd);
	w->go_fd = -1;
	do
		n = read(w->err_fd, &child_err, sizeof(child_err));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == sizeof(child_err)) {
		waitpid(w->pid, NULL, 0);
		w->pid = -1;
		return -child_err;
	}
	return 0;
}

int workload__finish(struct workload *w, int kill_it)
{
	int status = 0;

	if (w->go_fd >= 0)
		close(w->go_fd);	/* never started: the child exits on EOF */
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	if (w->pid <= 0)
		return 0;
	if (kill_it)
		kill(w->pid, SIGTERM);
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	w->pid = -1;
	return status;
}

int workload__exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

const char *target__validate(struct target *t)
{
	const char *warn = NULL;

	if ((t->pid || t->tid) && t->uid_str) {
		t->uid_str = NULL;
		warn = "PID/TID switch overriding UID";
	}
	if (t->uid_str && t->cpu_list) {
		t->cpu_list = NULL;
		warn = "UID switch overriding CPU";
	}
	if (t->uid_str && t->system_wide) {
		t->system_wide = 0;
		warn = "UID switch overriding SYSTEM";
	}
	if (t->per_thread && (t->system_wide || t->cpu_list)) {
		t->per_thread = 0;
		warn = warn ? warn : "SYSTEM/CPU switch overriding PER-THREAD";
	}
	return warn;
}

int target__parse_uid(struct target *t)
{
	struct passwd *pw = getpwnam(t->uid_str);
	u64 n;

	/* a name first, as a user may be called "1000"; then a known number */
	if (!pw && !parse_u64(t->uid_str, &n) && n < (uid_t)-1)
		pw = getpwuid((uid_t)n);
	if (!pw)
		return -ENOENT;
	t->uid = pw->pw_uid;
	return 0;
}
