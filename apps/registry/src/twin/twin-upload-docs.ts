import { ApiOperation } from '@nestjs/swagger';
import { BINARY } from '../openapi/api-decorators.js';
import { inlineSchema } from '../openapi/openapi-components.js';
import { UPLOAD_FORM_TYPE, revisionForm, workProductForm } from './twin-upload-request.js';

/** The upload routes' request bodies and metadata parameters in the OpenAPI document (twin-upload-request.ts reads them). */

export const METADATA_QUERY_DESCRIPTION =
  'A JSON object, URL-encoded (no duplicate keys, no `__proto__`); the query and headers share the 16 KiB request head, ' +
  'so metadata near its 16 KiB cap needs the JSON form';

export const METADATA_HEADER_DESCRIPTION =
  'The metadata as a JSON object in ASCII (other characters as JSON `\\u` escapes), instead of the query parameter; ' +
  'bounded by the 16 KiB request head like the query';

/**
 * The two forms of an upload: raw bytes in their own media type (any but forms), or the JSON form.
 * A request body given in the operation itself: the route reads the raw request, so there is no body
 * parameter for @ApiBody to describe, and the two forms have different schemas.
 */
export function ApiUploadBody(target: 'work-product' | 'revision') {
  const form = target === 'work-product' ? workProductForm : revisionForm;
  return ApiOperation(
    {
      requestBody: {
        required: true,
        content: {
          '*/*': {
            schema: { ...BINARY, description: 'The content, in its media type (Content-Type); not a multipart or URL-encoded form' },
          },
          [UPLOAD_FORM_TYPE]: {
            schema: {
              ...inlineSchema(form),
              description:
                'The JSON form: everything in one body (no query parameters, no X-Twin-Metadata header); `content` (text) or ' +
                '`content_base64` (bytes), one of them; metadata up to its full 16 KiB',
            },
          },
        },
      },
    },
    { overrideExisting: true },
  );
}
