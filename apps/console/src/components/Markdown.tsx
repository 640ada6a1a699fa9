import ReactMarkdown from 'react-markdown';

/**
 * Markdown written by a skill's author, rendered safely: react-markdown builds React elements (no HTML
 * string), raw HTML in the source is dropped, and only http(s), mailto and relative links survive.
 */
export function Markdown({ source }: { source: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown skipHtml urlTransform={(url) => (/^(https?:|mailto:|#|\/|\.)/i.test(url) || !/^[a-z]+:/i.test(url) ? url : '')}>
        {source.replace(/^---\n[\s\S]*?\n---\n/, '')}
      </ReactMarkdown>
    </div>
  );
}
