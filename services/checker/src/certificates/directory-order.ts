// In which order one order's directories are tried (DECISIONS §14): a saved
// order's directory first (the order is carried on there), then the directory
// that issued the certificate a renewal replaces, then ACME_DIRECTORY_URL's
// order of preference. Directories set aside go last, in the same order: they
// are asked only when every other one failed or is not allowed by CAA.

/**
 * `configured`: the directories in order of preference; `preferred`: those to
 * try before the rest, first first (null entries and directories no longer
 * configured are skipped); `setAside`: whether a directory is set aside now.
 */
export function directoryOrder(configured: readonly string[], preferred: ReadonlyArray<string | null>, setAside: (directoryUrl: string) => boolean): string[] {
  const known = new Set(configured);
  const ranked = [...new Set([...preferred.filter((url): url is string => url !== null && known.has(url)), ...configured])];
  return [...ranked.filter((url) => !setAside(url)), ...ranked.filter((url) => setAside(url))];
}
