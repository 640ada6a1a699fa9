import '@fontsource/inter/latin-400.css';
import '@fontsource/inter/latin-600.css';
import './styles.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App';

const queryClient = new QueryClient({
  defaultOptions: {
    // A problem answer of the client's (4xx) will not change on a retry; a network failure, a 429 or a 5xx
    // (DATABASE_UNAVAILABLE, QUEUE_UNAVAILABLE: the registry's own transient state) may.
    queries: {
      retry: (failures, error) => {
        const status = (error as { status?: unknown } | null)?.status;
        return failures < 2 && (typeof status !== 'number' || status === 429 || status >= 500);
      },
      staleTime: 5_000,
    },
  },
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/console">
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
