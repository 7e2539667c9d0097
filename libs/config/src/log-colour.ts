// NO_COLOR (https://no-color.org) is a convention that command-line tools share,
// not a setting of this service: like cdctl's settings it stays out of the
// variable table (and so out of the chart). It is read here because only this
// library reads the environment.

/** Whether readable log lines may be coloured: NO_COLOR set to anything but the empty string says no. */
export function logColourAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return !env.NO_COLOR;
}
