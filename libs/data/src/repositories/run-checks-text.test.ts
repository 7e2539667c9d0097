import { runChecksFromText, runChecksText } from './run-checks-text';

describe('a run\'s checks column', () => {
  it('reads back what it wrote, in contract order whatever the order given', () => {
    const checks = [
      { type: 'origin', status: 'failing', errorCode: 'origin_error_status', message: 'GET https://o/health: answered "503".' },
      { type: 'ownership', status: 'passing', errorCode: null, message: null },
      { type: 'routing', status: 'passing', errorCode: null, message: null },
      { type: 'certificate', status: 'pending', errorCode: null, message: 'The certificate is being issued.' },
    ] as const;
    expect(runChecksFromText(runChecksText(checks))).toEqual([checks[1], checks[2], checks[3], checks[0]]);
  });


  it('reads [status, error_code, message] per check in contract order', () => {
    const text = JSON.stringify([
      ['passing', null, null],
      ['failing', 'cname_not_found', 'No CNAME record at shop.example.com.'],
      ['pending', null, 'Waits for ownership and routing.'],
      ['passing', null, 'GET / answered 200.'],
    ]);
    expect(runChecksFromText(text)).toEqual([
      { type: 'ownership', status: 'passing', errorCode: null, message: null },
      { type: 'routing', status: 'failing', errorCode: 'cname_not_found', message: 'No CNAME record at shop.example.com.' },
      { type: 'certificate', status: 'pending', errorCode: null, message: 'Waits for ownership and routing.' },
      { type: 'origin', status: 'passing', errorCode: null, message: 'GET / answered 200.' },
    ]);
  });

  it('reads a check the row lacks as pending', () => {
    expect(runChecksFromText('[["passing"]]')).toEqual([
      { type: 'ownership', status: 'passing', errorCode: null, message: null },
      { type: 'routing', status: 'pending', errorCode: null, message: null },
      { type: 'certificate', status: 'pending', errorCode: null, message: null },
      { type: 'origin', status: 'pending', errorCode: null, message: null },
    ]);
  });
});
