# Its honest work sits beside a scratch notebook nested two hundred thousand levels deep.
