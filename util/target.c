#include "util/target.h"

#include <errno.h>
#include <fcntl.h>
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
