/**
 * A documented-API client for test set-up (creating users, changing options) without driving the UI.
 * It logs in like the console does: session cookie plus the New-Api-User header.
 */
export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}

export class ApiSession {
  private constructor(
    private readonly baseUrl: string,
    private readonly cookie: string,
    readonly userId: number,
  ) {}

  static async login(baseUrl: string, username: string, password: string): Promise<ApiSession> {
    const response = await fetch(`${baseUrl}/api/user/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    const body = (await response.json()) as Envelope<{ id: number }>;
    if (!body.success || !body.data) throw new Error(`login of ${username} failed: ${body.message}`);
    const cookie = (response.headers.getSetCookie?.() ?? [response.headers.get('set-cookie') ?? ''])
      .map((header) => header.split(';')[0])
      .join('; ');
    return new ApiSession(baseUrl, cookie, body.data.id);
  }

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<Envelope<T>> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        Cookie: this.cookie,
        'New-API-User': String(this.userId),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as Envelope<T>;
  }

  async must<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await this.call<T>(method, path, body);
    if (!answer.success) throw new Error(`${method} ${path} failed: ${answer.message}`);
    return answer.data as T;
  }

  /** Creates a common user and returns its id (found by search, as creation answers no data). */
  async createUser(username: string, password: string): Promise<number> {
    await this.must('POST', '/api/user/', { username, password, display_name: username });
    const found = await this.must<Array<{ id: number; username: string }>>(
      'GET',
      `/api/user/search?keyword=${encodeURIComponent(username)}`,
    );
    const user = found.find((candidate) => candidate.username === username);
    if (!user) throw new Error(`created user ${username} not found`);
    return user.id;
  }

  async setOption(key: string, value: string): Promise<void> {
    await this.must('PUT', '/api/option/', { key, value });
  }
}
