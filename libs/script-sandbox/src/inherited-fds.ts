/**
 * libuv passes a child every descriptor its parent holds without FD_CLOEXEC, and the executor may hold
 * some it inherited itself (this machine's test runner gets a pipe at fd 251 that way). bwrap forwards
 * them into the sandbox, where a pipe or socket to the host would be a way out. So every run starts as
 * a bash that closes all descriptors above 2 and then execs the real command.
 */
const closeInheritedFds = (highestKept: number) =>
  [
    'for fd in /proc/self/fd/*; do',
    '  fd=${fd##*/}',
    // the listing's own descriptor is already closed when the loop runs: -e skips it
    `  if ((fd > ${highestKept})) && [[ -e /proc/self/fd/$fd ]]; then exec {fd}>&-; fi`,
    'done',
  ].join('\n');

/**
 * The command line that runs `command` with only stdin, stdout and stderr open (and the descriptors up
 * to `highestKept`, which the caller opened on purpose, e.g. a sandbox process's pipe at 3). With
 * `emptyEnvironment` the command starts with no variables at all (bash would otherwise export PWD, SHLVL and _).
 */
export function withInheritedFdsClosed(bash: string, command: string[], emptyEnvironment: boolean, highestKept = 2): string[] {
  return [bash, '-c', `${closeInheritedFds(highestKept)}\nexec ${emptyEnvironment ? '-c ' : ''}"$@"`, 'close-inherited-fds', ...command];
}
