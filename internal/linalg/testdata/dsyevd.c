#include <lapacke.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>
#include <cblas.h>
int main(){int n=2000; double*b=malloc(8*n*n),*a=malloc(8*n*n),*w=malloc(8*n);
srand(1); for(int i=0;i<n*n;i++) b[i]=rand()/(double)RAND_MAX-0.5;
for(int r=0;r<3;r++){
cblas_dsyrk(CblasRowMajor,CblasUpper,CblasNoTrans,n,n,1.0/n,b,n,0,a,n);
for(int i=0;i<n;i++) a[i*n+i]+=1;
struct timespec t0,t1; clock_gettime(CLOCK_MONOTONIC,&t0);
int info=LAPACKE_dsyevd(LAPACK_COL_MAJOR,'V','L',n,a,n,w);
clock_gettime(CLOCK_MONOTONIC,&t1); printf("info %d time %.3f\n",info,(t1.tv_sec-t0.tv_sec)+(t1.tv_nsec-t0.tv_nsec)/1e9);}
}
