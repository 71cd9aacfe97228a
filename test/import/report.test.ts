import { appendFileSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ReportWriter, readDone } from '../../src/import/report.js';
import { tempCsv } from './helpers.js';

describe('report', () => {
  it('writes a header and one line per row, quoting what needs it', () => {
    const path = tempCsv('', 'report-1.csv');
    const w = ReportWriter.open(path);
    w.write({
      row: 1,
      line: 2,
      key: 'E-1',
      action: 'create',
      id: 'u1',
      status: 'ok',
      invited: true,
    });
    w.write({
      row: 2,
      line: 3,
      key: 'E-2',
      action: 'error',
      status: 'failed',
      error: 'email \'x@\' is, "bad"',
    });
    w.write({ key: 'E-9', action: 'deactivate', id: 'u9', status: 'ok' });
    w.close();
    expect(readFileSync(path, 'utf8')).toBe(
      'row,line,key,action,id,status,error,invitation\n1,2,E-1,create,u1,ok,,queued\n2,3,E-2,error,,failed,"email \'x@\' is, ""bad""",\n,,E-9,deactivate,u9,ok,,\n',
    );
    expect([...readDone(path)]).toEqual([[1, { key: 'E-1', action: 'create', id: 'u1' }]]);
  });

  it('survives a line cut short by a kill, and appends after it', () => {
    const path = tempCsv('', 'report-2.csv');
    const w = ReportWriter.open(path);
    w.write({ row: 1, line: 2, key: 'E-1', action: 'create', id: 'u1', status: 'ok' });
    w.close();
    appendFileSync(path, '2,3,E-2,crea');
    expect([...readDone(path).keys()]).toEqual([1]);
    const again = ReportWriter.open(path, true);
    again.write({ row: 2, line: 3, key: 'E-2', action: 'create', id: 'u2', status: 'ok' });
    again.close();
    expect([...readDone(path).keys()]).toEqual([1, 2]);
  });

  it('appends to a report of the old columns in those columns, and resumes it', () => {
    const path = tempCsv(
      'row,line,key,action,id,status,error\n1,2,E-1,create,u1,ok,\n',
      'old-report.csv',
    );
    const w = ReportWriter.open(path, true);
    w.write({
      row: 2,
      line: 3,
      key: 'E-2',
      action: 'create',
      id: 'u2',
      status: 'ok',
      invited: true,
    });
    w.close();
    expect(readFileSync(path, 'utf8')).toBe(
      'row,line,key,action,id,status,error\n1,2,E-1,create,u1,ok,\n2,3,E-2,create,u2,ok,\n',
    );
    expect([...readDone(path).keys()]).toEqual([1, 2]);
  });

  it('refuses a file that is not a report', () => {
    expect(() => readDone(tempCsv('externalId,email\n'))).toThrow(/not a roster import report/);
    expect(() => readDone('/nonexistent/report.csv')).toThrow(/--resume .*: no such file/);
  });
});
