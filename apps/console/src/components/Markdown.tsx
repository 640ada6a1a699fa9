import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { ScrollBox } from './ScrollBox';

/**
 * Markdown written by a skill's author (GitHub's dialect: tables, task lists), rendered safely: react-markdown builds React elements (no HTML
 * string), raw HTML in the source is dropped, images are not loaded, and only
 * http(s), mailto and relative links survive.
 */
export function Markdown({ source }: { source: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        skipHtml
        components={{
          // An image would be fetched from wherever its author points (the CSP would refuse it anyway): its alt text stays.
          img: ({ alt }) => <span className="muted">[image{alt ? `: ${alt}` : ''}]</span>,
          table: ({ children }) => (
            <ScrollBox label="Table">
              <table>{children}</table>
            </ScrollBox>
          ),
        }}
        urlTransform={(url) => (/^(https?:|mailto:|#|\/|\.)/i.test(url) || !/^[a-z]+:/i.test(url) ? url : undefined)}
      >
        {source.replace(/^---\n[\s\S]*?\n---\n/, '')}
      </ReactMarkdown>
    </div>
  );
}
