import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <section className="narrow">
      <h1>Not found</h1>
      <p>
        There is no page here. <Link to="/">Back to the catalog</Link>.
      </p>
    </section>
  );
}
