import { Box, type SxProps, type Theme } from '@mui/material';
import Markdown, { type Components } from 'react-markdown';

/** Links leave the console in a new tab, without handing it a reference to this window. */
const COMPONENTS: Components = {
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
};

const MARKDOWN_SX: SxProps<Theme> = {
  overflowWrap: 'anywhere',
  '& a': { color: 'primary.main' },
  '& img': { maxWidth: '100%' },
  '& pre': { overflowX: 'auto', p: 1.5, borderRadius: 1, bgcolor: 'action.hover' },
  '& code': { fontFamily: 'monospace', fontSize: '0.9em' },
  '& :not(pre) > code': { px: 0.5, borderRadius: 0.5, bgcolor: 'action.hover' },
  '& table': { borderCollapse: 'collapse', display: 'block', overflowX: 'auto' },
  '& th, & td': { border: 1, borderColor: 'divider', px: 1, py: 0.5 },
  '& blockquote': { m: 0, pl: 2, borderLeft: 4, borderColor: 'divider', color: 'text.secondary' },
  '& > :first-of-type': { mt: 0 },
  '& > :last-child': { mb: 0 },
};

/**
 * Markdown written by the operator (home, about, notice) or by a model (playground). react-markdown builds React
 * elements from the syntax tree and renders raw HTML as plain text (no rehype-raw), so a `<script>` or an `onerror`
 * attribute in the text shows as text and never runs; `javascript:` links are dropped by its URL filter.
 */
export const MarkdownView = ({ children, sx }: { children: string; sx?: SxProps<Theme> }) => (
  <Box className="markdown-content" sx={[MARKDOWN_SX, ...(Array.isArray(sx) ? sx : [sx])]}>
    <Markdown components={COMPONENTS}>{children}</Markdown>
  </Box>
);
