import type { ReactNode } from 'react';
import { Box, Card, CardContent, LinearProgress, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { MarkdownView } from './MarkdownView';
import { frameAddressOf, type OperatorContent } from './useOperatorContent';

interface OperatorContentViewProps {
  state: OperatorContent;
  /** i18n key of the text shown when the content cannot be loaded. */
  failedKey: string;
  /** What an empty content shows (new-api's default page). */
  fallback: ReactNode;
}

/** Home and about: the operator's Markdown, or the https page it names in a frame, or the default when empty. */
export const OperatorContentView = ({ state, failedKey, fallback }: OperatorContentViewProps) => {
  const translate = useTranslate();
  const { content, loaded, failed } = state;
  if (failed && !content) {
    return (
      <Card>
        <CardContent>
          <Typography color="error">{translate(failedKey)}</Typography>
        </CardContent>
      </Card>
    );
  }
  if (content === null || (!loaded && content === '')) return <LinearProgress aria-label={translate('app.common.loading')} />;
  if (content.trim() === '') return <>{fallback}</>;
  const frameAddress = frameAddressOf(content);
  if (frameAddress) {
    return (
      <Box
        component="iframe"
        src={frameAddress}
        title={translate('pages.content.frame_title')}
        sx={{ display: 'block', width: '100%', height: 'calc(100vh - 140px)', minHeight: 400, border: 'none' }}
      />
    );
  }
  return (
    <Card>
      <CardContent sx={{ fontSize: '1.1rem' }}>
        <MarkdownView>{content}</MarkdownView>
      </CardContent>
    </Card>
  );
};
