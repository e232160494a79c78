const [U,T,n,start] = process.argv.slice(2);
let ok=0, bad=0;
for (let i=0;i<+n;i++){
  const r = await fetch(U+'/api/v1/jobs',{method:'POST',headers:{authorization:'Bearer '+T,'content-type':'application/json'},body:JSON.stringify({command:['sleep','1'],priority:'low',gpuMilli:1000,name:'w'+(+start+i)})});
  if (r.status<300) ok++; else {bad++; if(bad<3) console.log(r.status, await r.text());}
}
console.log('ok',ok,'bad',bad);
