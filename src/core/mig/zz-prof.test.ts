import { it } from 'vitest';
import { findMigProfile, migProfilesFor } from '../index.js';
import { planMigReconfiguration, DBG } from './plan-reconfiguration.js';
const H='H100-80GB';
const p=(n:string)=>findMigProfile(H,n)!;
const g=(n:string,s:number,inUse=false)=>({profileId:p(n).profileId,start:s,size:p(n).memorySlices,inUse});
it('prof',()=>{
  const profs = migProfilesFor(H).filter(x=>!x.mediaExtensions);
  const gpus = Array.from({length:8},(_,i)=>({gpuIndex:i,model:H,schedulable:true,gis: [0,1,2,3,4,5,6].map(s=>g('1g.10gb',s))}));
  let seed=7; const rnd=()=>{seed=(seed*1103515245+12345)%2147483648; return seed/2147483648;};
  const queue = Array.from({length:50},(_,i)=>{const pr=profs[Math.floor(rnd()*profs.length)]!; return {jobId:i,profile:pr,gpuEquivalents:pr.computeSlices/7};});
  for (let k=0;k<5;k++) { const t=performance.now(); planMigReconfiguration({gpus,queue}); console.log(performance.now()-t, JSON.stringify(DBG)); }
});
