import { randomBytes } from 'node:crypto';
import { HttpFake, sendJson } from './http-fake';

/**
 * The "WeChat server" (songquanpeng/wechat-server) new-api talks to: `GET /api/wechat/user?code=` with the
 * access token in Authorization. An unknown code is `success:true` with empty data (the caller then says
 * the code is wrong); a wrong token is refused with success:false.
 */
export class WeChatServerFake extends HttpFake {
  token = 'wechat-server-token';
  private readonly codes = new Map<string, string>();

  constructor() {
    super((request, response) => {
      const url = new URL(request.url, 'http://fake');
      if (request.method !== 'GET' || url.pathname !== '/api/wechat/user')
        return sendJson(response, 404, { success: false, message: 'not found' });
      if (request.headers.authorization !== this.token) {
        return sendJson(response, 200, { success: false, message: '无权进行此操作，未登录或 token 无效' });
      }
      const code = url.searchParams.get('code') ?? '';
      if (!code) return sendJson(response, 200, { success: false, message: '无效的参数' });
      const wechatId = this.codes.get(code) ?? '';
      this.codes.delete(code);
      sendJson(response, 200, { success: true, message: '', data: wechatId });
    });
  }

  static async start(): Promise<WeChatServerFake> {
    return new WeChatServerFake().start();
  }

  /** The code the official account shows the user; single use. */
  issueCode(wechatId: string): string {
    const code = randomBytes(3).toString('hex');
    this.codes.set(code, wechatId);
    return code;
  }
}
