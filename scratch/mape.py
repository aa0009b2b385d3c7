import json,sys
for f in sys.argv[1:]:
    d=json.load(open(f)); rows=d['rows']
    e=[abs(r['error']) for r in rows]
    print(f, 'rows',len(rows),'pass',sum(r['ok'] for r in rows),'MAPE %.1f%%'%(sum(e)/len(e)))
