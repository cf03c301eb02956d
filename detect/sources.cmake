# Fast-Hessian detector (added by the detector work).
