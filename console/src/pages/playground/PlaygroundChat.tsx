import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Box, Button, Card, CircularProgress, Paper, Stack, TextField, Typography } from '@mui/material';
import ClearAllIcon from '@mui/icons-material/ClearAll';
import SendIcon from '@mui/icons-material/Send';
import StopIcon from '@mui/icons-material/Stop';
import { useTranslate } from 'react-admin';
import { MarkdownView } from '../about/MarkdownView';
import type { ChatMessage } from './usePlaygroundChat';

const MessageBubble = ({ message }: { message: ChatMessage }) => {
  const translate = useTranslate();
  const mine = message.role === 'user';
  return (
    <Box
      data-testid="playground-message"
      data-role={message.role}
      data-status={message.status ?? 'complete'}
      sx={{ display: 'flex', flexDirection: 'column', alignItems: mine ? 'flex-end' : 'flex-start' }}
    >
      <Typography variant="caption" color="text.secondary" sx={{ px: 0.5 }}>
        {translate(mine ? 'pages.playground.you' : 'pages.playground.assistant')}
        {message.status === 'error' ? ` · ${translate('pages.playground.error')}` : ''}
        {message.stopped ? ` · ${translate('pages.playground.stopped')}` : ''}
      </Typography>
      <Paper
        variant="outlined"
        sx={{
          px: 1.5,
          py: 1,
          maxWidth: { xs: '92%', sm: '80%' },
          bgcolor: mine ? 'action.selected' : 'background.paper',
          borderColor: message.status === 'error' ? 'error.main' : 'divider',
          color: message.status === 'error' ? 'error.main' : 'text.primary',
        }}
      >
        {message.status === 'loading' ? (
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <CircularProgress size={16} />
            <Typography variant="body2">{translate('pages.playground.thinking')}</Typography>
          </Stack>
        ) : mine ? (
          <Typography sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{message.content}</Typography>
        ) : (
          <MarkdownView>{message.content}</MarkdownView>
        )}
      </Paper>
    </Box>
  );
};

interface PlaygroundChatProps {
  messages: ChatMessage[];
  streaming: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
  onClear: () => void;
}

/** The conversation, the input, and send, stop and clear-context. */
export const PlaygroundChat = ({ messages, streaming, onSend, onStop, onClear }: PlaygroundChatProps) => {
  const translate = useTranslate();
  const [draft, setDraft] = useState('');
  const end = useRef<HTMLDivElement>(null);
  const last = messages[messages.length - 1];

  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.length, last?.content]);

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || streaming) return;
    onSend(text);
    setDraft('');
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <Card
      sx={{
        flex: 1,
        minWidth: 0,
        display: 'flex',
        flexDirection: 'column',
        height: { xs: '70vh', md: 'calc(100vh - 150px)' },
        minHeight: 360,
      }}
    >
      <Box role="log" aria-live="polite" sx={{ flex: 1, overflowY: 'auto', p: { xs: 1, sm: 2 } }}>
        {messages.length === 0 ? (
          <Typography color="text.secondary" sx={{ textAlign: 'center', mt: 4 }}>
            {translate('pages.playground.empty')}
          </Typography>
        ) : (
          <Stack spacing={1.5}>
            {messages.map((message) => (
              <MessageBubble key={message.id} message={message} />
            ))}
          </Stack>
        )}
        <div ref={end} />
      </Box>
      <Box component="form" onSubmit={submit} sx={{ p: { xs: 1, sm: 2 }, borderTop: 1, borderColor: 'divider' }}>
        <TextField
          label={translate('pages.playground.input')}
          placeholder={translate('pages.playground.input_placeholder')}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          multiline
          maxRows={6}
          size="small"
          fullWidth
        />
        <Stack direction="row" spacing={1} sx={{ mt: 1, justifyContent: 'flex-end', flexWrap: 'wrap' }}>
          <Button onClick={onClear} startIcon={<ClearAllIcon />} disabled={messages.length === 0}>
            {translate('pages.playground.clear')}
          </Button>
          {streaming ? (
            <Button onClick={onStop} startIcon={<StopIcon />} color="warning" variant="outlined">
              {translate('pages.playground.stop')}
            </Button>
          ) : null}
          <Button type="submit" variant="contained" startIcon={<SendIcon />} disabled={streaming || draft.trim() === ''}>
            {translate('pages.playground.send')}
          </Button>
        </Stack>
      </Box>
    </Card>
  );
};
