import { it } from 'vitest';
import { planMigReconfiguration, findMigProfile, migProfilesFor } from '../index.js';
const H='H100-80GB';
const p=(n:string)=>findMigProfile(H,n)!;
const g=(n:string,s:number,inUse=false)=>({profileId:p(n).profileId,start:s,size:p(n).memorySlices,inUse});
it('bench',()=>{
  const profs = migProfilesFor(H).filter(x=>!x.mediaExtensions);
  for (const variant of ['1g-idle','mixed']) {
  const gpus = Array.from({length:8},(_,i)=>({gpuIndex:i,model:H,schedulable:true,gis: variant==='1g-idle' ? [0,1,2,3,4,5,6].map(s=>g('1g.10gb',s)) : [g('2g.20gb',0), g('1g.10gb',2), g('1g.10gb',3, i%2===0), g('1g.20gb',4), g('1g.10gb',6)]}));
  let seed=7; const rnd=()=>{seed=(seed*1103515245+12345)%2147483648; return seed/2147483648;};
  const queue = Array.from({length:50},(_,i)=>{const pr=profs[Math.floor(rnd()*profs.length)]!; return {jobId:i,profile:pr,gpuEquivalents:pr.computeSlices/7};});
  for (let k=0;k<3;k++){ const t=performance.now(); const plan=planMigReconfiguration({gpus,queue}); console.log(variant, (performance.now()-t).toFixed(1),'ms', plan.assignments.length, plan.destroy.length, plan.create.length, plan.placedGpuEquivalents.toFixed(3)); }
  }
});
