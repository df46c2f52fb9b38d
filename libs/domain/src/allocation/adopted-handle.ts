/**
 * The handle of the addresses adopted for a pod (one per family): named by the pod's uid, so a
 * replayed or relisted pod finds its adoption again, and a CNI DEL naming the pod's uid (its own
 * handle is the sandbox's, which never held them) releases them too.
 */
export const adoptedHandle = (podUid: string): string => `adopted:${podUid}`;
