// Package cfgsweep sweeps a server's configurations, each measured to its
// knee: the list of configurations (--server-param grids and a
// --server-config file), the server command's template, starting a
// server in a process group of its own and always stopping it (or running
// a user's apply command for a server bench does not start), the
// readiness wait, the server's capacity facts (cache_config_info), one
// rate sweep per configuration through the caller's callback, the
// cross-configuration result (failed configurations are rows too), the
// best configuration for a plan, and the result file that --resume reads.
//
// Imports: sweep, serverwatch, capacity, config, internal packages. Never
// report, resultfile, compare or the driver: the driver passes the rate
// sweep in, and report prints the result.
package cfgsweep
