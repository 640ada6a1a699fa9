import { Route, Routes } from 'react-router';
import { AccessProvider } from './access/AccessContext';
import { Layout } from './components/Layout';
import { CatalogPage } from './pages/CatalogPage';
import { ExecutionPage } from './pages/ExecutionPage';
import { ExecutionsPage } from './pages/ExecutionsPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { PublishPage } from './pages/PublishPage';
import { RunPage } from './pages/RunPage';
import { SignInPage } from './pages/SignInPage';
import { SkillPage } from './pages/skill/SkillPage';
import { TwinPage } from './pages/TwinPage';

export function App() {
  return (
    <AccessProvider>
      <Routes>
        <Route element={<Layout />}>
          <Route index element={<CatalogPage />} />
          <Route path="skills/:name" element={<SkillPage />} />
          <Route path="skills/:name/run" element={<RunPage />} />
          <Route path="executions" element={<ExecutionsPage />} />
          <Route path="executions/:id" element={<ExecutionPage />} />
          <Route path="twin" element={<TwinPage />} />
          <Route path="publish" element={<PublishPage />} />
          <Route path="sign-in" element={<SignInPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </AccessProvider>
  );
}
