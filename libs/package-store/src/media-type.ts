import mime from 'mime-types';

/** Where mime-types' table does not fit package files (`.ts` is MPEG transport stream there). */
const PACKAGE_TYPES: Record<string, string> = {
  '.ts': 'text/x-typescript',
  '.mts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.bash': 'text/x-shellscript',
  '.md': 'text/markdown',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
};

/** The media type a package file is served with (SKILL.md as text/markdown), `application/octet-stream` when unknown. */
export function mediaTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  const extension = dot > path.lastIndexOf('/') ? path.slice(dot).toLowerCase() : '';
  return PACKAGE_TYPES[extension] ?? (mime.lookup(path) || 'application/octet-stream');
}

/** Whether a media type is text (served as UTF-8 text rather than base64 where a protocol distinguishes). */
export function isTextMediaType(mediaType: string): boolean {
  return (
    mediaType.startsWith('text/') ||
    /^application\/(json|yaml|xml|javascript|x-sh)\b/.test(mediaType) ||
    mediaType.endsWith('+json') ||
    mediaType.endsWith('+xml')
  );
}
