/*
 * dl-cached - the node cache service (doc/dl-cached.8): owns the node's
 * cache directory, serves dl-stage's Prolog/Epilog on CacheDir/.sock,
 * keeps the controller's model of the node current, prefetches for
 * pending jobs and copies files between nodes.  This file only parses
 * options and wires the modules (cached.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cached.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1"
#endif

static void _usage(FILE *f)
{
	fprintf(f,
		"Usage: dl-cached [OPTIONS]\n"
		"The node cache service of slurm-datalocality.\n"
		"\n"
		"  -N NODE     node name (default: the short host name); CacheDir's\n"
		"              %%n is expanded with it\n"
		"  -f FILE     datalocality.conf (default: next to $SLURM_CONF)\n"
		"  -P PORT     peer port (default: PeerPort, 6831)\n"
		"  -a ADDR     address peers reach this node at (default: PeerAddr,\n"
		"              else the host name)\n"
		"  -c HOST     controller (default: ServiceController, else the first\n"
		"              SlurmctldHost of slurm.conf)\n"
		"  -D          stay in the foreground, log to stderr\n"
		"  -p FILE     write the process id to FILE\n"
		"  -h, -V      help, version\n");
}

static int _pidfile(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	fprintf(f, "%ld\n", (long)getpid());
	return fclose(f);
}

static int _daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	if (setsid() < 0)
		return -1;
	if ((fd = open("/dev/null", O_RDWR)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return chdir("/");
}

int main(int argc, char **argv)
{
	static cached_conf_t conf;
	const char *conf_path = NULL, *pidfile = NULL;
	bool foreground = false;
	char err[1024] = "";
	int ch;

	while ((ch = getopt(argc, argv, "N:f:P:a:c:Dp:hV")) != -1) {
		switch (ch) {
		case 'N':
			snprintf(conf.node, sizeof(conf.node), "%s", optarg);
			break;
		case 'f':
			conf_path = optarg;
			break;
		case 'P': {
			char *end;
			long p = strtol(optarg, &end, 10);

			if (*end || p < 1 || p > 65535) {
				fprintf(stderr, "dl-cached: -P %s is not a "
					"port\n", optarg);
				return 2;
			}
			conf.peer_port = (uint16_t)p;
			break;
		}
		case 'a':
			snprintf(conf.peer_host, sizeof(conf.peer_host), "%s",
				 optarg);
			break;
		case 'c':
			snprintf(conf.controller, sizeof(conf.controller),
				 "%s", optarg);
			break;
		case 'D':
			foreground = true;
			break;
		case 'p':
			pidfile = optarg;
			break;
		case 'V':
			printf("dl-cached %s\n", PACKAGE_VERSION);
			return 0;
		case 'h':
			_usage(stdout);
			return 0;
		default:
			_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		_usage(stderr);
		return 2;
	}
	cached_log_init(true);
	if (geteuid() != 0) {
		cached_log(3, "must run as root (it owns the node's cache)");
		return 1;
	}
	if (cached_conf_load(&conf, conf_path, err, sizeof(err))) {
		cached_log(3, "%s", err);
		return 1;
	}
	if (!foreground && _daemonize()) {
		cached_log(3, "cannot daemonize: %s", strerror(errno));
		return 1;
	}
	cached_log_init(foreground);
	if (pidfile && _pidfile(pidfile)) {
		cached_log(3, "%s: %s", pidfile, strerror(errno));
		return 1;
	}
	umask(022);
	ch = cached_loop_run(&conf);
	if (pidfile)
		unlink(pidfile);
	return ch;
}
