# Its honest work sits beside a scratch notebook of 200 MB.
