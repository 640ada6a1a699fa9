/** `pointer` one level down, at `token` escaped as RFC 6901 asks (`~` as `~0`, `/` as `~1`). */
export function childPointer(pointer: string, token: string | number): string {
  return `${pointer}/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}
