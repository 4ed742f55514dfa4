/* Shell commands run detached from their caller: posix_spawn() (no copy
 * of the caller's memory map, however big its rings), a process group of
 * their own, and only the fds they are given. */
#include "lib/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child gets instead of the caller's state: defaults. */
static int spawn__attrs(posix_spawnattr_t *attr)
{
	short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	struct sched_param prio = { 0 };
	sigset_t none, all;
	int err = posix_spawnattr_init(attr);

	if (err)
		return -err;
	sigemptyset(&none);
	sigfillset(&all);
	/* a recorder at -r runs SCHED_FIFO: its hook must not */
	if (sched_getscheduler(0) != SCHED_OTHER)
		flags |= POSIX_SPAWN_SETSCHEDULER;
	err = posix_spawnattr_setflags(attr, flags);
	if (!err)
		err = posix_spawnattr_setpgroup(attr, 0);
	if (!err)
		err = posix_spawnattr_setsigmask(attr, &none);
	if (!err)
		err = posix_spawnattr_setsigdefault(attr, &all);
	if (!err && (flags & POSIX_SPAWN_SETSCHEDULER))
		err = posix_spawnattr_setschedpolicy(attr, SCHED_OTHER);
	if (!err && (flags & POSIX_SPAWN_SETSCHEDULER))
		err = posix_spawnattr_setschedparam(attr, &prio);
	if (err)
		posix_spawnattr_destroy(attr);
	return -err;
}

/* stdin /dev/null, stdout and stderr the pipe, nothing else: fds another
 * thread opened without O_CLOEXEC are closed too */
static int spawn__fds(posix_spawn_file_actions_t *fa, int out)
{
	int err = posix_spawn_file_actions_init(fa);

	if (err)
		return -err;
	err = posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	if (!err)
		err = posix_spawn_file_actions_adddup2(fa, out, 1);
	if (!err)
		err = posix_spawn_file_actions_adddup2(fa, out, 2);
	if (!err)
		err = posix_spawn_file_actions_addclosefrom_np(fa, 3);
	if (err)
		posix_spawn_file_actions_destroy(fa);
	return -err;
}

int spawn__shell(struct spawn *sp, const char *script, const char *name, const char *arg,
		 char *const envp[])
{
	char *const argv[] = { "/bin/sh", "-c", (char *)script, (char *)name, (char *)arg, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int p[2], err;

	sp->pid = -1;
	sp->out_fd = -1;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	err = spawn__attrs(&attr);
	if (!err) {
		err = spawn__fds(&fa, p[1]);
		if (!err) {
			err = -posix_spawn(&sp->pid, "/bin/sh", &fa, &attr, argv, envp);
			posix_spawn_file_actions_destroy(&fa);
		}
		posix_spawnattr_destroy(&attr);
	}
	close(p[1]);
	if (err || fcntl(p[0], F_SETFL, O_NONBLOCK)) {
		err = err ? err : -errno;
		close(p[0]);
		if (sp->pid > 0) {
			kill(-sp->pid, SIGKILL);
			waitpid(sp->pid, NULL, 0);
		}
		sp->pid = -1;
		return err;
	}
	sp->out_fd = p[0];
	return 0;
}

int spawn__kill(const struct spawn *sp, int sig)
{
	if (sp->pid <= 0)
		return -ESRCH;
	return kill(-sp->pid, sig) ? -errno : 0;
}
